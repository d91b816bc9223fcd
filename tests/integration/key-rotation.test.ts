import { afterAll, expect, it } from "vitest";
import { freePort } from "../support/ports.ts";
import { nextIp, valid } from "../support/requests";
import { type RunningServer, startServer } from "../support/server";

/**
 * The public key changes on two instances behind one proxy without a page being refused, in the
 * order docs/deployment.md gives (Rotating secrets): first every instance accepts the next key,
 * then the new build (pages with the new key, the old one still accepted) goes out one instance at
 * a time, then the old key goes. At every step a page from either instance, carrying either key in
 * circulation, is accepted by both. The order the docs gave before refused them (the first check).
 */

const OLD = "pk_public_rotation_old_0001";
const NEW = "pk_public_rotation_new_0002";
const running = new Map<string, RunningServer>();
afterAll(async () => {
  for (const s of running.values()) await s.stop();
});

const ports = { a: 0, b: 0 };
const dirs: Record<string, string> = {};

/** (Re)start instance `name` with these keys, on its own port and data folder: a rolling restart's step. */
async function deploy(name: "a" | "b", keys: Record<string, string>) {
  await running.get(name)?.stop();
  ports[name] ||= await freePort();
  const s = await startServer(
    { ...keys, ...(dirs[name] ? { DATA_DIR: dirs[name] } : {}) },
    ports[name],
  );
  dirs[name] = s.dataDir;
  running.set(name, s);
}

/** The statuses both instances answer to a page's submission carrying each key. */
async function answers(keys: string[]) {
  const out: Record<string, number> = {};
  for (const [name, s] of running) {
    for (const key of keys) {
      const res = await fetch(`${s.url}/functions/v1/send-email`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${key}`,
          "x-forwarded-for": nextIp(),
        },
        body: JSON.stringify(valid),
      });
      out[`${name} ${key === OLD ? "old" : "new"}`] = res.status;
    }
  }
  return out;
}

it("the public key rotates across two instances without refusing a page", async () => {
  const all201 = (keys: string[]) =>
    Object.fromEntries(keys.flatMap((k) => ["a", "b"].map((n) => [`${n} ${k}`, 201])));
  await deploy("a", { CONTACT_PUBLIC_KEY: OLD });
  await deploy("b", { CONTACT_PUBLIC_KEY: OLD });

  // The order that loses: the new build on one instance while the other knows only the old key.
  await deploy("a", { CONTACT_PUBLIC_KEY: NEW, CONTACT_PUBLIC_KEY_PREVIOUS: OLD });
  expect((await answers([NEW]))["b new"]).toBe(401);
  await deploy("a", { CONTACT_PUBLIC_KEY: OLD });

  // 1. Every instance accepts the next key; the pages still carry the old one.
  await deploy("a", { CONTACT_PUBLIC_KEY: OLD, CONTACT_PUBLIC_KEY_PREVIOUS: NEW });
  expect(await answers([OLD])).toEqual(all201(["old"]));
  await deploy("b", { CONTACT_PUBLIC_KEY: OLD, CONTACT_PUBLIC_KEY_PREVIOUS: NEW });
  expect(await answers([OLD, NEW])).toEqual(all201(["old", "new"]));

  // 2. The new build, one instance at a time: its pages carry the new key; it still accepts the old.
  await deploy("a", { CONTACT_PUBLIC_KEY: NEW, CONTACT_PUBLIC_KEY_PREVIOUS: OLD });
  expect(await answers([OLD, NEW])).toEqual(all201(["old", "new"]));
  await deploy("b", { CONTACT_PUBLIC_KEY: NEW, CONTACT_PUBLIC_KEY_PREVIOUS: OLD });
  expect(await answers([OLD, NEW])).toEqual(all201(["old", "new"]));

  // 3. Once no page with the old key is open (a day later), the old key goes.
  await deploy("a", { CONTACT_PUBLIC_KEY: NEW });
  await deploy("b", { CONTACT_PUBLIC_KEY: NEW });
  expect(await answers([NEW])).toEqual(all201(["new"]));
}, 120_000);
