import { join } from "node:path";
import { PORT } from "../../playwright.config";
import { type RunningServer, startServer } from "../support/server";
import { TestSmtp } from "../support/smtp";

/**
 * Before the end-to-end tests: a real SMTP server (messages saved to E2E_DATA_DIR/received) and the
 * production server on PORT, storing inquiries in E2E_DATA_DIR. Stopped after the run.
 */
export default async function globalSetup() {
  const dataDir = process.env.E2E_DATA_DIR ?? "";
  const smtp = await new TestSmtp({ saveTo: join(dataDir, "received") }).start(
    Number(process.env.E2E_SMTP_PORT),
  );
  let server: RunningServer;
  try {
    server = await startServer(
      {
        DATA_DIR: join(dataDir, "server"),
        SMTP_URL: smtp.url,
        RATE_LIMIT_PER_MINUTE: "1000",
        RATE_LIMIT_PER_DAY: "100000",
        RATE_LIMIT_NETWORK_PER_MINUTE: "10000",
        // The form's behaviour is under test here, at machine speed; spam.test.ts tests the layers in Chromium.
        SPAM_FILTER: "off",
      },
      PORT,
      { OUTBOX_POLL_MS: 100, OUTBOX_RETRY_BASE_MS: 200 },
    );
  } catch (e) {
    await smtp.stop();
    throw e;
  }
  return async () => {
    await server.stop();
    await smtp.stop();
  };
}
