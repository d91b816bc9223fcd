import { spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Page, test } from "@playwright/test";

/** The contact form in Chromium against the production server, with a real SMTP server behind it. */

const FAILURE = "There was an error sending your message. Please try again or contact us directly.";
const dataDir = process.env.E2E_DATA_DIR ?? "";

function storedInquiries(): Array<Record<string, unknown>> {
  const r = spawnSync(process.execPath, ["scripts/inquiries.ts", "list", "--json"], {
    env: { ...process.env, DATA_DIR: join(dataDir, "server"), DATABASE_URL: "" },
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

function receivedEmails(): string[] {
  const dir = join(dataDir, "received");
  try {
    return readdirSync(dir).map((f) => readFileSync(join(dir, f), "utf8"));
  } catch {
    return [];
  }
}

async function fill(page: Page, name: string, extra: { email?: string; message?: string } = {}) {
  await page.getByLabel("Full Name").fill(name);
  await page.getByLabel("Email Address").fill(extra.email ?? "visitor@example.org");
  await page.getByLabel("Company").fill("Acme Rockets");
  await page.getByLabel("Service Interest").selectOption("AI Consulting");
  await page.getByRole("textbox", { name: "Message" }).fill(extra.message ?? "We would like a quote for an AI audit.");
}

const dialog = (page: Page) => page.getByRole("dialog", { name: "Message Sent Successfully!" });

test.describe("with JavaScript", () => {
  test("sends, shows the dialog, clears the form; the inquiry is stored and emailed", async ({ page }) => {
    const name = `Visitor ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    // Hold the request a moment so the sending state can be seen.
    await page.route("**/functions/v1/send-email", async (route) => {
      await new Promise((r) => setTimeout(r, 400));
      await route.continue();
    });
    const requests: Array<Record<string, string>> = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/functions/v1/send-email")) requests.push({ ...r.headers(), body: r.postData() ?? "" });
    });
    await fill(page, name);
    const button = page.getByRole("button", { name: /Send Message|Sending/ });
    await button.click();
    await expect(button).toHaveText("Sending...");
    await expect(button).toBeDisabled();

    await expect(dialog(page)).toBeVisible();
    await expect(dialog(page)).toContainText(
      "Thank you for your inquiry! We'll get back to you within 24 hours during business days.",
    );
    await expect(button).toHaveText("Send Message");
    await expect(button).toBeEnabled();
    await expect(page.getByLabel("Full Name")).toHaveValue("");
    await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("");
    await expect(page.getByLabel("Service Interest")).toHaveValue("");

    // The call of spec §7, with an idempotency key.
    expect(requests).toHaveLength(1);
    expect(requests[0]?.["content-type"]).toBe("application/json");
    expect(requests[0]?.["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.parse(requests[0]?.body ?? "{}")).toEqual({
      name,
      email: "visitor@example.org",
      company: "Acme Rockets",
      service: "AI Consulting",
      message: "We would like a quote for an AI audit.",
    });

    // Focus is in the dialog; Close returns it to the form.
    expect(await page.evaluate(() => document.activeElement?.closest("dialog") !== null)).toBe(true);
    await dialog(page).getByRole("button", { name: "Close", exact: true }).click();
    await expect(dialog(page)).toBeHidden();
    await expect(page.getByRole("button", { name: "Send Message" })).toBeFocused();

    await expect.poll(() => storedInquiries().find((r) => r.name === name)?.status, { timeout: 15_000 }).toBe("sent");
    const email = receivedEmails().find((e) => e.includes(name));
    expect(email).toBeDefined();
    expect(email).toMatch(/^Reply-To: .*visitor@example\.org/m);
    expect(email).toContain("We would like a quote for an AI audit.");
  });

  test("the X and Escape close the dialog too; axe finds nothing with it open", async ({ page }) => {
    await page.goto("/contact");
    await fill(page, `Visitor ${randomUUID().slice(0, 8)}`);
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(dialog(page)).toBeVisible();
    const results = await new AxeBuilder({ page })
      .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"])
      .analyze();
    expect(results.violations.map((v) => v.id)).toEqual([]);
    await dialog(page).getByRole("button", { name: "Close dialog" }).click();
    await expect(dialog(page)).toBeHidden();

    await fill(page, `Visitor ${randomUUID().slice(0, 8)}`);
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(dialog(page)).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(dialog(page)).toBeHidden();
  });

  for (const [label, failure] of [
    ["the server answers 500", "500"],
    ["the network is down", "abort"],
  ] as const) {
    test(`when ${label}: the alert, the values kept, the error logged`, async ({ page }) => {
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      await page.goto("/contact");
      await page.route("**/functions/v1/send-email", (route) =>
        failure === "500"
          ? route.fulfill({ status: 500, contentType: "application/json", body: '{"error":"database on fire"}' })
          : route.abort("internetdisconnected"),
      );
      await fill(page, "Grace Hopper");
      await page.getByRole("button", { name: "Send Message" }).click();
      await expect(page.getByRole("alert")).toHaveText(FAILURE);
      await expect(dialog(page)).toBeHidden();
      await expect(page.getByLabel("Full Name")).toHaveValue("Grace Hopper");
      await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue(
        "We would like a quote for an AI audit.",
      );
      await expect(page.getByLabel("Service Interest")).toHaveValue("AI Consulting");
      await expect(page.getByRole("button", { name: "Send Message" })).toBeEnabled();
      expect(errors.join("\n")).toMatch(
        failure === "500" ? /500[\s\S]*database on fire|database on fire/ : /could not be sent/,
      );
    });
  }

  test("shows the server's field errors beside their fields", async ({ page }) => {
    await page.goto("/contact");
    await fill(page, "Ada", { email: "ada@localhost" });
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByRole("alert")).toHaveText(FAILURE);
    const email = page.getByLabel("Email Address");
    await expect(email).toHaveAttribute("aria-invalid", "true");
    await expect(email).toHaveAccessibleDescription("Please enter a valid email address.");
    await expect(email).toHaveValue("ada@localhost");
  });

  test("can be filled and sent with the keyboard alone", async ({ page }) => {
    await page.goto("/contact");
    for (
      let i = 0;
      i < 40 && !(await page.getByLabel("Full Name").evaluate((el) => el === document.activeElement));
      i++
    ) {
      await page.keyboard.press("Tab");
    }
    await expect(page.getByLabel("Full Name")).toBeFocused();
    await page.keyboard.type("Katherine Johnson");
    await page.keyboard.press("Tab");
    await page.keyboard.type("katherine@example.org");
    await page.keyboard.press("Tab");
    await page.keyboard.type("NASA");
    await page.keyboard.press("Tab");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Orbital mechanics, please.");
    await page.keyboard.press("Tab");
    await expect(page.getByRole("button", { name: "Send Message" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(dialog(page)).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(dialog(page)).toBeHidden();
    await expect(page.getByRole("button", { name: "Send Message" })).toBeFocused();
  });

  test("preselects the service a link asks for", async ({ page }) => {
    await page.goto("/contact?service=General+Inquiry");
    await expect(page.getByLabel("Service Interest")).toHaveValue("General Inquiry");
  });
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("posts the form and shows the success dialog; the inquiry is stored", async ({ page }) => {
    const name = `No-JS ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await fill(page, name);
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(dialog(page)).toBeVisible();
    await expect(dialog(page)).toContainText("We'll get back to you within 24 hours during business days.");
    await expect(page.getByLabel("Full Name")).toHaveValue("");
    await expect.poll(() => storedInquiries().find((r) => r.name === name)?.source).toBe("form");
    // The dialog's buttons close it without JavaScript (form method="dialog").
    await dialog(page).getByRole("button", { name: "Close", exact: true }).click();
    await expect(dialog(page)).toBeHidden();
  });

  test("re-renders with field errors and the values kept", async ({ page }) => {
    await page.goto("/contact");
    await fill(page, "   ", { email: "ann@localhost", message: "Please call me." });
    const response = page.waitForResponse((r) => r.request().method() === "POST");
    await page.getByRole("button", { name: "Send Message" }).click();
    expect((await response).status()).toBe(400);
    await expect(page.getByRole("alert")).toHaveText("Please correct the fields marked below.");
    await expect(page.getByLabel("Full Name")).toHaveAccessibleDescription("Please enter your full name.");
    await expect(page.getByLabel("Email Address")).toHaveAccessibleDescription("Please enter a valid email address.");
    await expect(page.getByLabel("Email Address")).toHaveValue("ann@localhost");
    await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("Please call me.");
    await expect(page.getByLabel("Service Interest")).toHaveValue("AI Consulting");
    await expect(dialog(page)).toBeHidden();
  });
});
