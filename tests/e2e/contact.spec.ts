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
  const r = spawnSync(process.execPath, ["server/cli.ts", "list", "--json"], {
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

async function fill(
  page: Page,
  name: string,
  extra: { email?: string; message?: string; service?: string | null } = {},
) {
  await page.getByLabel("Full Name").fill(name);
  await page.getByLabel("Email Address").fill(extra.email ?? "visitor@example.org");
  await page.getByLabel("Company").fill("Acme Rockets");
  // null: leave the service as the page chose it.
  if (extra.service !== null)
    await page.getByLabel("Service Interest").selectOption(extra.service ?? "AI Consulting");
  await page
    .getByRole("textbox", { name: "Message" })
    .fill(extra.message ?? "We would like a quote for an AI audit.");
}

const dialog = (page: Page) => page.getByRole("dialog", { name: "Message Sent Successfully!" });

test.describe("with JavaScript", () => {
  test("sends, shows the dialog, clears the form; the inquiry is stored and emailed", async ({
    page,
  }) => {
    const name = `Visitor ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    // Hold the request until the sending state has been seen.
    let release = () => {};
    const seen = new Promise<void>((r) => {
      release = r;
    });
    await page.route("**/functions/v1/send-email", async (route) => {
      await seen;
      await route.continue();
    });
    const requests: Array<Record<string, string>> = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/functions/v1/send-email"))
        requests.push({ ...r.headers(), body: r.postData() ?? "" });
    });
    await fill(page, name);
    const button = page.getByRole("button", { name: /Send Message|Sending/ });
    await button.click();
    await expect(button).toHaveText("Sending...");
    await expect(button).toBeDisabled();
    release();

    await expect(dialog(page)).toBeVisible();
    await expect(dialog(page)).toContainText(
      "Thank you for your inquiry! We'll get back to you within 24 hours during business days.",
    );
    // The visitor's own booking link, from the endpoint's answer (server/booking/).
    await expect(
      dialog(page).getByRole("link", { name: "Book your free 30-minute consultation" }),
    ).toHaveAttribute("href", /^\/book\?t=[0-9a-f-]{36}\.book\./);
    await expect(button).toHaveText("Send Message");
    await expect(button).toBeEnabled();
    await expect(page.getByLabel("Full Name")).toHaveValue("");
    await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("");
    await expect(page.getByLabel("Service Interest")).toHaveValue("");

    // The call of spec §7, with an idempotency key.
    expect(requests).toHaveLength(1);
    expect(requests[0]?.["content-type"]).toBe("application/json");
    expect(requests[0]?.["idempotency-key"]).toMatch(/^[0-9a-f-]{36}$/);
    // Spec §7: the anonymous public key embedded in the page, as the bearer token.
    expect(requests[0]?.authorization).toBe("Bearer pk_public_teton_contact_2025");
    expect(JSON.parse(requests[0]?.body ?? "{}")).toEqual({
      name,
      email: "visitor@example.org",
      company: "Acme Rockets",
      service: "AI Consulting",
      message: "We would like a quote for an AI audit.",
    });

    // Focus is in the dialog; Close returns it to the form.
    expect(await page.evaluate(() => document.activeElement?.closest("dialog") !== null)).toBe(
      true,
    );
    await dialog(page).getByRole("button", { name: "Close", exact: true }).click();
    await expect(dialog(page)).toBeHidden();
    await expect(page.getByRole("button", { name: "Send Message" })).toBeFocused();

    await expect
      .poll(() => storedInquiries().find((r) => r.name === name)?.status, { timeout: 15_000 })
      .toBe("sent");
    const email = receivedEmails().find((e) => e.includes(name));
    expect(email).toBeDefined();
    expect(email).not.toMatch(/^Reply-To: .*visitor@example\.org/m);
    expect(email).toContain("We would like a quote for an AI audit.");
  });

  test("the X and Escape close the dialog too; axe finds nothing with it open", async ({
    page,
  }) => {
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

  // Spec §4/§8: a failed send ends in the alert, the values kept. A 503 or a network error is sent
  // again briefly (a restart behind the proxy), the alert within 10 s of the first failure; at once
  // when the browser says it is offline, and when the server answers 500.
  for (const [label, failure, attempts] of [
    ["the server answers 500", "500", "one"],
    ["the server keeps answering 503", "503", "several"],
    ["the network is down", "abort", "several"],
    ["the browser is offline", "offline", "one"],
  ] as const) {
    test(`when ${label}: the alert within 10 s, the values kept, the error logged`, async ({
      page,
      context,
    }) => {
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      await page.goto("/contact");
      const keys: string[] = [];
      let firstFailure = 0;
      page.on("requestfailed", (r) => {
        if (r.method() === "POST") firstFailure ||= Date.now();
      });
      await page.route("**/functions/v1/send-email", (route) => {
        keys.push(route.request().headers()["idempotency-key"] ?? "");
        if (failure === "abort" || failure === "offline")
          return route.abort("internetdisconnected");
        firstFailure ||= Date.now();
        return route.fulfill({
          status: Number(failure),
          contentType: "application/json",
          body: '{"error":"database on fire"}',
        });
      });
      await fill(page, "Grace Hopper");
      if (failure === "offline") await context.setOffline(true);
      const clicked = Date.now();
      await page.getByRole("button", { name: "Send Message" }).click();
      const alert = page.getByRole("alert");
      if (attempts === "several") {
        // Sent again: the visitor sees that something is happening, in a polite live region.
        await expect(page.getByRole("status").filter({ hasText: "trying again" })).toBeVisible();
      }
      await expect(alert).toHaveText(FAILURE, { timeout: 20_000 });
      const took = Date.now() - (firstFailure || clicked);
      expect(took).toBeLessThan(attempts === "one" ? 2_000 : 10_000);
      if (failure === "500") expect(keys).toHaveLength(1);
      else if (failure === "offline") expect(keys.length).toBeLessThanOrEqual(1);
      else {
        expect(keys.length).toBeGreaterThan(2);
        expect(new Set(keys).size).toBe(1);
      }
      await expect(page.locator("[data-send-status]")).toHaveText("");
      await expect(dialog(page)).toBeHidden();
      await expect(page.getByLabel("Full Name")).toHaveValue("Grace Hopper");
      await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue(
        "We would like a quote for an AI audit.",
      );
      await expect(page.getByLabel("Service Interest")).toHaveValue("AI Consulting");
      await expect(page.getByRole("button", { name: "Send Message" })).toBeEnabled();
      // The status is part of the logged line: a 500 must say 500.
      expect(errors.join("\n")).toMatch(
        /^5\d\d$/.test(failure)
          ? new RegExp(`Contact form: the server answered ${failure}\\b`)
          : /Contact form: the message could not be sent/,
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
      i < 40 &&
      !(await page.getByLabel("Full Name").evaluate((el) => el === document.activeElement));
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

test.describe("errors and long messages with JavaScript", () => {
  test("a field the server refuses gets the error summary, focused, and its message", async ({
    page,
  }) => {
    await page.goto("/contact");
    await fill(page, "Ann Example", { email: "ann@localhost" });
    await page.getByRole("button", { name: "Send Message" }).click();
    const summary = page.getByRole("region", { name: "There is a problem" });
    await expect(summary).toBeFocused();
    await expect(summary.getByRole("link")).toHaveText(["Please enter a valid email address."]);
    await expect(page.getByLabel("Email Address")).toHaveAccessibleDescription(
      "Please enter a valid email address.",
    );
    // Corrected and sent: the summary goes.
    await page.getByLabel("Email Address").fill("ann@example.org");
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(dialog(page)).toBeVisible();
    await expect(summary).toHaveCount(0);
  });

  test("a long paste is kept whole and the count says how far over the limit it is", async ({
    page,
  }) => {
    await page.goto("/contact");
    const box = page.getByRole("textbox", { name: "Message" });
    const count = page.locator("#message-count");
    await expect(count).toHaveAttribute("aria-live", "polite");
    await box.fill("a".repeat(3000));
    await expect(count).toHaveText("");
    await box.fill("a".repeat(4600));
    await expect(count).toHaveText("4,600 of 5,000 characters");
    await box.fill("a".repeat(5230));
    await expect(box).toHaveValue("a".repeat(5230));
    await expect(count).toHaveText(
      "230 characters over the limit of 5,000. Please shorten your message.",
    );
  });
});

test.describe("without JavaScript", () => {
  test.use({ javaScriptEnabled: false });

  test("a service a link asks for is chosen in the served page, and sent with the form", async ({
    page,
    request,
  }) => {
    const served = await (await request.get("/contact?service=AI+Consulting")).text();
    expect(served).toContain('<option value="AI Consulting" selected="">');
    expect(served).toContain('<option value="">Select a service</option>');
    // Anything but one of the form's choices leaves the page as built.
    const other = await (await request.get("/contact?service=%3Cscript%3E")).text();
    expect(other).toContain('<option value="" selected="">Select a service</option>');

    await page.goto("/contact?service=AI+Software+Development");
    await expect(page.getByLabel("Service Interest")).toHaveValue("AI Software Development");
    const name = `Chosen ${randomUUID().slice(0, 8)}`;
    await fill(page, name, { service: null });
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page).toHaveURL(/\/contact\/sent\?t=[^&]+$/);
    await expect
      .poll(() => storedInquiries().find((r) => r.name === name)?.service)
      .toBe("AI Software Development");
  });

  test("a privacy line right after Send links to the notice, and leads there", async ({ page }) => {
    await page.goto("/contact");
    const line = page.locator("#form-privacy");
    await expect(line).toHaveText(
      "We use what you send to answer you and to keep spam out, and keep it no longer than one year. Read our Privacy Policy.",
    );
    // Next to the button: the line follows the row that holds Send, inside the same form.
    await expect(
      page.locator("form[data-contact-form] > div:has(button[type=submit]) + #form-privacy"),
    ).toHaveCount(1);
    await line.getByRole("link", { name: "Privacy Policy" }).click();
    await expect(page).toHaveURL(/\/privacy$/);
    await expect(page.locator("h1")).toHaveText("Privacy Policy");
  });

  test("posts the form, then lands on the result page (303): reload and Back never store it twice", async ({
    page,
  }) => {
    const name = `No-JS ${randomUUID().slice(0, 8)}`;
    await page.goto("/contact");
    await fill(page, name);
    const posted = page.waitForResponse((r) => r.request().method() === "POST");
    await page.getByRole("button", { name: "Send Message" }).click();
    expect((await posted).status()).toBe(303);
    await expect(page).toHaveURL(/\/contact\/sent\?t=[^&]+$/);
    await expect(page.locator("h1")).toHaveText("Message Sent Successfully!");
    await expect(page.getByRole("main")).toContainText(
      "We'll get back to you within 24 hours during business days.",
    );
    expect(page.url()).not.toContain(encodeURIComponent(name));
    // The visitor's own booking link (server/booking/): the only thing the address carries.
    await expect(
      page.getByRole("link", { name: "Book your free 30-minute consultation" }),
    ).toHaveAttribute("href", /^\/book\?t=[0-9a-f-]{36}\.book\./);
    expect(await page.context().cookies()).toEqual([]);
    await expect.poll(() => storedInquiries().filter((r) => r.name === name).length).toBe(1);
    // Reload and Back: GET requests only, nothing stored again.
    const methods: string[] = [];
    page.on("request", (r) => methods.push(r.method()));
    await page.reload();
    await expect(page.locator("h1")).toHaveText("Message Sent Successfully!");
    await page.goBack();
    await expect(page).toHaveURL(/\/contact$/);
    await page.goForward();
    await expect(page).toHaveURL(/\/contact\/sent\?t=[^&]+$/);
    expect(methods.filter((m) => m !== "GET")).toEqual([]);
    expect(storedInquiries().filter((r) => r.name === name)).toHaveLength(1);
  });

  test("a message over the limit is not cut: the server says so and keeps it whole", async ({
    page,
  }) => {
    await page.goto("/contact");
    await fill(page, "Long Paste", { message: "b".repeat(5100) });
    await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("b".repeat(5100));
    await page.getByRole("button", { name: "Send Message" }).click();
    await expect(page.getByRole("region", { name: "There is a problem" })).toContainText(
      "Message must be at most 5,000 characters.",
    );
    await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("b".repeat(5100));
  });

  test("re-renders with field errors and the values kept", async ({ page }) => {
    await page.goto("/contact");
    await fill(page, "   ", { email: "ann@localhost", message: "Please call me." });
    const response = page.waitForResponse((r) => r.request().method() === "POST");
    await page.getByRole("button", { name: "Send Message" }).click();
    expect((await response).status()).toBe(400);
    // The error summary at the top, focused, linking to each field; the alert by the button says "above".
    const summary = page.getByRole("region", { name: "There is a problem" });
    await expect(summary).toBeFocused();
    expect((await summary.boundingBox())?.y ?? 0).toBeLessThan(
      (await page.getByLabel("Full Name").boundingBox())?.y ?? 0,
    );
    await expect(summary.getByRole("link")).toHaveText([
      "Please enter your full name.",
      "Please enter a valid email address.",
    ]);
    await summary.getByRole("link", { name: "Please enter a valid email address." }).click();
    await expect(page).toHaveURL(/#email$/);
    await expect(page.getByRole("alert")).toHaveText("Please correct the fields marked above.");
    await expect(page.getByLabel("Full Name")).toHaveAccessibleDescription(
      "Please enter your full name.",
    );
    await expect(page.getByLabel("Email Address")).toHaveAccessibleDescription(
      "Please enter a valid email address.",
    );
    await expect(page.getByLabel("Email Address")).toHaveValue("ann@localhost");
    await expect(page.getByRole("textbox", { name: "Message" })).toHaveValue("Please call me.");
    await expect(page.getByLabel("Service Interest")).toHaveValue("AI Consulting");
    await expect(dialog(page)).toBeHidden();
  });
});
