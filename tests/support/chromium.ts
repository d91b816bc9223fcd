import { type Browser, chromium } from "playwright-core";
import { chromiumArgs } from "../../playwright.config.ts";

/** Debian's Chromium (Playwright cannot download its own here), as the end-to-end tests launch it. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: chromiumArgs,
  });
}
