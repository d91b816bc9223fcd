# The site as one image: the prerendered pages, the Node server and the operator CLI.
#   podman build -t teton-site --build-arg SITE_URL=https://www.example.com .
#   podman run -p 3000:3000 -v teton-data:/data teton-site
# Build-time variables (baked into the pages) are build arguments; everything else is read at run
# time from the environment (docs/configuration.md).

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json .npmrc ./
# `npm install`, not `npm ci`: the lockfile lacks Tailwind's optional platform packages, which
# `npm ci` refuses (see .ci/run); it installs the locked versions.
RUN npm install --no-audit --no-fund
COPY . .
# No default: an image built without the site's address refuses to start (server/main.ts), rather
# than point the links in every lead at www.example.com.
ARG SITE_URL
ARG CONTACT_ENDPOINT
ARG CONTACT_PUBLIC_KEY
ENV SITE_URL=${SITE_URL} CONTACT_ENDPOINT=${CONTACT_ENDPOINT} CONTACT_PUBLIC_KEY=${CONTACT_PUBLIC_KEY}
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
# The build-time variables are read at run time too (the sender's domain, the pages' policy, the
# key): the image keeps the values it was built with as defaults, so run and build agree.
ARG SITE_URL
ARG CONTACT_ENDPOINT
ARG CONTACT_PUBLIC_KEY
ENV NODE_ENV=production PORT=3000 HOST=0.0.0.0 DATA_DIR=/data NODE_COMPILE_CACHE=/app/.node-compile-cache \
    SITE_URL=${SITE_URL} CONTACT_ENDPOINT=${CONTACT_ENDPOINT} CONTACT_PUBLIC_KEY=${CONTACT_PUBLIC_KEY}
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/build ./build
COPY server.js ./
COPY server ./server
COPY app ./app
COPY db ./db
COPY deploy/start.sh deploy/litestream.yml ./deploy/
RUN mkdir -p /data /app/.node-compile-cache && chown node:node /data /app/.node-compile-cache
USER node
# Node's compile cache (server.js) filled once here, by a start that stops itself: no start of the
# image compiles the server's bundle (build/server-main, ADR 0030) or strips its TypeScript again.
RUN DATA_DIR=/tmp/warm-up PORT=3999 HOST=127.0.0.1 timeout -s INT 8 node server.js >/dev/null; \
    rm -rf /tmp/warm-up; test -n "$(ls /app/.node-compile-cache)"
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: /readyz answers 503 at once; SHUTDOWN_DELAY_MS later (0 by default) the server stops
# accepting, drains connections and the outbox worker, then exits 0
# (under Litestream, which passes it on and replicates what is left).
STOPSIGNAL SIGTERM
# The server, under Litestream when LITESTREAM_REPLICA_URL is set (deploy/start.sh).
CMD ["sh", "deploy/start.sh"]
