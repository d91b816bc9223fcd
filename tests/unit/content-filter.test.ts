import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  corpusKinds,
  leaveOneKindOut,
  margin,
  newKind,
  withoutNewKind,
} from "../../scripts/spam-kinds.ts";
import { TUNING } from "../../server/config.ts";
import {
  ContentModel,
  type Example,
  reasonOf,
  seedCorpus,
  tokens,
} from "../../server/contact/intake/content-filter.ts";

/** The content layer's model: what it reads in a message, what it holds, and what it learns. */

const [HOLD, SUSPECT] = [TUNING.SPAM_HOLD_SCORE, TUNING.SPAM_SUSPECT_SCORE];
const seed = seedCorpus();
const model = new ContentModel(seed);
const podcasts = newKind();
/** The corpus without the learning curve's kind (podcast guest booking), to teach it as new. */
const lacking = withoutNewKind(seed);

describe("the seed corpus", () => {
  it("has at least 300 messages of each kind, each once", () => {
    expect(seed.filter((e) => e.label === "spam").length).toBeGreaterThanOrEqual(300);
    expect(seed.filter((e) => e.label === "genuine").length).toBeGreaterThanOrEqual(300);
    const texts = seed.map((e) => e.message);
    expect(new Set(texts).size).toBe(texts.length);
  });
  it("a corpus folder that is missing, or lacks spam, is refused, named", () => {
    const onlyGenuine = mkdtempSync(join(tmpdir(), "corpus-"));
    writeFileSync(
      join(onlyGenuine, "genuine.tsv"),
      "\tCould you quote a network upgrade for our office?\n",
    );
    expect(() => seedCorpus(join(onlyGenuine, "missing"))).toThrow(/^ENOENT: .*missing'$/);
    expect(() => seedCorpus(onlyGenuine)).toThrow(/has no spam messages/);
    rmSync(onlyGenuine, { recursive: true, force: true });
  });

  it("is read in kinds, each a group of its own, to be scored by a model that never saw it", () => {
    const kinds = corpusKinds(seed);
    expect(kinds.filter((k) => k.label === "spam").length).toBeGreaterThanOrEqual(30);
    expect(kinds.filter((k) => k.label === "genuine").length).toBeGreaterThanOrEqual(15);
    expect(kinds.flatMap((k) => k.examples).length).toBe(seed.length);
  });
  it("teaches the learning curve's kind from a corpus that has none of it", () => {
    const podcastKind = seed.filter((e) => e.group === "spam-podcasts.tsv");
    expect(podcastKind.length).toBeGreaterThanOrEqual(5);
    const left = new Set(lacking);
    expect(podcastKind.filter((e) => left.has(e))).toEqual([]);
    const texts = new Set(lacking.map((e) => e.message));
    expect(podcasts.filter((e) => texts.has(e.message))).toEqual([]);
  });
});

describe("what it reads", () => {
  it("a message's shape: prices, rates, percentages, links, opt-out lines, capitals", () => {
    const t = tokens({
      company: "Rank Agency",
      message:
        "GET RANKED NOW: $99, 30% off, $15/hour, see https://x.example. Reply STOP to opt out!!",
    });
    for (const shape of ["_price", "_rate", "_percent", "_link", "_optout", "_caps", "_exclaim"])
      expect(t).toContain(shape);
    expect(t).toContain("company:agency");
    expect(t).toContain("ranked now");
  });
  it("not the company's own name or the words of its services: greeting it is evidence of nothing", () => {
    const t = tokens({
      company: "",
      message: "Hello Teton Digital team, we need AI consulting for our infrastructure.",
    });
    for (const own of [
      "teton",
      "digital",
      "hello teton",
      "teton digital",
      "ai",
      "consulting",
      "infrastructure",
    ])
      expect(t).not.toContain(own);
    expect(t).toContain("hello");
  });
  it("no shape in a plain question, and the usual acronyms are not shouting", () => {
    const t = tokens({
      company: "",
      message: "Can you help us move our ERP and CRM to AWS? Our IT person left.",
    });
    expect(t.filter((x) => x.startsWith("_"))).toEqual([]);
  });
});

describe("who sells to whom", () => {
  it("reads a seller's stance and a buyer's, whatever the words", () => {
    const on = (message: string) =>
      tokens({ company: "", message }).filter((t) => t.startsWith("stance:"));
    expect(
      on("Hi, we help firms like yours grow your revenue. Would you be open to a quick call?"),
    ).toEqual(["stance:offer", "stance:yourBusiness", "stance:asksForTime", "stance:youHeavy"]);
    expect(
      on("Hello, our office printers keep failing and we need someone this week. Can you help?"),
    ).toEqual(["stance:request", "stance:ourThings"]);
  });
  it("marks a pitch in words the corpus never had, and delivers a request about the same thing", () => {
    const pitch = {
      company: "",
      message:
        "Hello, we look after aquariums in offices across the state. Would you be open to a quick call about one for your lobby?",
    };
    const request = {
      company: "",
      message:
        "Hello, we keep an aquarium in our lobby and its controller needs to report to our network. Can you help us set that up?",
    };
    expect(model.score(pitch)).toBeGreaterThanOrEqual(SUSPECT);
    expect(model.score(pitch)).toBeLessThan(HOLD);
    expect(model.score(request)).toBeLessThan(SUSPECT);
  });
});

describe("how far words are trusted", () => {
  it("the stance weighs: a seller's adds, a buyer's takes off", () => {
    for (const seller of ["offer", "yourBusiness", "asksForTime"])
      expect(model.weight(`stance:${seller}`)).toBeGreaterThan(0);
    for (const buyer of ["request", "ourThings"])
      expect(model.weight(`stance:${buyer}`)).toBeLessThan(0);
  });
  it("keeps a margin: no genuine inquiry of a kind it never saw comes within 2 in log-odds of the hold", () => {
    const kinds = corpusKinds(seed);
    expect(margin(kinds, leaveOneKindOut(seed, kinds), HOLD).logOdds).toBeGreaterThanOrEqual(2);
  }, 180_000); // a model for each of about 90 kinds: seconds, more on a busy machine
});

describe("what it holds", () => {
  it("holds a pitch that reads like marketing, and says why, with its score", () => {
    const pitch = {
      company: "",
      message:
        "Hi, I noticed your website is not on the first page of Google. We can fix that in 30 days. Can I send our pricing?",
    };
    const score = model.score(pitch);
    expect(score).toBeGreaterThanOrEqual(HOLD);
    const evidence = model.evidence(pitch);
    expect(evidence.length).toBeGreaterThan(0);
    expect(reasonOf(score, evidence)).toMatch(/^reads like marketing \((0\.99\d|1\.000)\): ".+"/);
  });
  it("delivers a genuine inquiry, with money and a link in it", () => {
    const v = model.score({
      company: "Casper Title Co",
      message:
        "We have $40,000 budgeted for a new server and backups this year. Our current setup is described at https://intranet.example/it. Could you quote?",
    });
    expect(v).toBeLessThan(SUSPECT);
  });
});

describe("what it learns", () => {
  it("catches a new kind of spam after three marks: the next of that kind it scored clean is marked at least", () => {
    const marks: Example[] = podcasts.slice(0, 3);
    const before = new ContentModel(lacking);
    const after = new ContentModel(lacking, marks);
    const probes = podcasts.slice(20).filter((e) => before.score(e) < SUSPECT);
    expect(probes.length).toBeGreaterThanOrEqual(3);
    const caught = probes.filter((e) => after.score(e) >= SUSPECT);
    expect(caught.length / probes.length).toBeGreaterThanOrEqual(0.6);
  });
  it("learns a genuine mark: a message like it is no longer held", () => {
    const job = {
      company: "",
      message:
        "Hello, I'm a senior cloud architect (AWS, Azure) looking for new opportunities. I'd love to learn more about your team and open roles.",
    };
    const similar = {
      company: "",
      message:
        "Hello, I'm a senior DevOps engineer looking for new opportunities and would love to learn about your team.",
    };
    const marked = new ContentModel(seed, [{ ...job, label: "genuine" }]);
    expect(marked.score(similar)).toBeLessThan(new ContentModel(seed).score(similar));
  });
});
