import { describe, expect, it } from "vitest";
import { type LoadResult, medianLoad, type Result, targetVerdicts, type Verdict } from "./report.ts";
import type { StreamScenario } from "./streams.ts";
import type { TargetId } from "./targets.ts";

/** One round's figures; what a test leaves out reads as not measured. */
function load(figures: { tasksPerSecond?: number; cpuMsPerTask?: number; getTask?: number; ttfe?: number }) {
  const { tasksPerSecond = Number.NaN, cpuMsPerTask = Number.NaN, getTask = Number.NaN, ttfe = Number.NaN } = figures;
  return {
    ttfe: { median: ttfe, p95: ttfe, n: Number.isNaN(ttfe) ? 0 : 200 },
    tasks: {
      perSecond: tasksPerSecond,
      completed: 0,
      failures: 0,
      medianMs: Number.NaN,
      cpuMsPerTask,
      perInstance: [tasksPerSecond],
    },
    getTask: { perSecond: getTask, p50: Number.NaN, p99: Number.NaN, errors: 0, cpuUsPerRequest: Number.NaN },
    sendMessage: {
      perSecond: Number.NaN,
      completed: 0,
      failures: 0,
      p50: Number.NaN,
      p95: Number.NaN,
      cpuMsPerCall: Number.NaN,
    },
  } satisfies LoadResult;
}

/** A target's result over its rounds, as run.ts assembles it. */
function result(target: TargetId, rounds: LoadResult[], streams: Result["streams"] = {}): Result {
  return { target, label: target, store: "", instances: 1, load: medianLoad(rounds), rounds, streams };
}

function verdict(verdicts: Verdict[], id: string): Verdict {
  const found = verdicts.find((v) => v.id === id);
  if (!found) throw new Error(`no verdict ${id}`);
  return found;
}

describe("targetVerdicts", () => {
  it("judges the median of the rounds' ratios, not the ratio of the medians, and says when rounds straddle the line", () => {
    // The SDK's rate rises over the rounds, ours less: the ratios are 2.5, 1.8 and 1.5; the medians' ratio
    // would read 2000 / 1000 = 2.0.
    const ours = result("ours", [load({ getTask: 2000 }), load({ getTask: 1800 }), load({ getTask: 2100 })]);
    const sdk = result("sdk", [load({ getTask: 800 }), load({ getTask: 1000 }), load({ getTask: 1400 })]);
    const getTask = verdict(targetVerdicts([ours, sdk]), "postgres.getTask");
    expect(getTask.status).toBe("NOT MET");
    expect(getTask.figures.ratio).toBeCloseTo(1.8, 5);
    expect(getTask.detail).toContain("1.80× (rounds 1.50–2.50×)");
    expect(getTask.detail).toContain("at the line: rounds on both sides");
  });

  it("judges lower-is-better figures the other way, and leaves 'at the line' out when every round agrees", () => {
    const ours = result("ours", [load({ ttfe: 2.0 }), load({ ttfe: 2.2 })]);
    const sdk = result("sdk", [load({ ttfe: 1.0 }), load({ ttfe: 1.0 })]);
    const firstEvent = verdict(targetVerdicts([ours, sdk]), "postgres.firstEvent");
    expect(firstEvent.status).toBe("NOT MET");
    expect(firstEvent.detail).not.toContain("at the line");
    const faster = result("ours", [load({ ttfe: 1.2 }), load({ ttfe: 1.4 })]);
    expect(verdict(targetVerdicts([faster, sdk]), "postgres.firstEvent").status).toBe("MET");
  });

  it("prints the floors beside the first event: the SDK plus a commit, and the durable floor server of the same rounds", () => {
    const ours = result("ours", [load({ ttfe: 3.0 }), load({ ttfe: 3.0 })]);
    const sdk = result("sdk", [load({ ttfe: 1.0 }), load({ ttfe: 1.2 })]);
    const floor = result("floor-durable", [load({ ttfe: 1.5 }), load({ ttfe: 1.2 })]);
    const { detail } = verdict(targetVerdicts([ours, sdk, floor], { commitMs: 0.4 }), "postgres.firstEvent");
    expect(detail).toContain("one start-sized commit 0.40 ms) 1.50 ms = 1.36×");
    expect(detail).toContain("a durable server's floor (floor-durable) 1.35 ms = 1.25× (rounds 1.00–1.50×)");
  });

  it("prints the embedded store's durable floor beside the embedded verdicts, and only there", () => {
    const embedded = result("ours-embedded", [load({ ttfe: 3.0, tasksPerSecond: 400 })]);
    const sdk = result("sdk", [load({ ttfe: 1.0, tasksPerSecond: 1000 })]);
    const floor = result("floor-durable-embedded", [load({ ttfe: 1.8, tasksPerSecond: 700 })]);
    const verdicts = targetVerdicts([embedded, sdk, floor]);
    expect(verdict(verdicts, "embedded.firstEvent").detail).toContain(
      "a durable server's floor (floor-durable-embedded) 1.80 ms = 1.80×",
    );
    expect(verdict(verdicts, "embedded.tasks").detail).toContain(
      "a durable server's floor (floor-durable-embedded) 700 tasks/s = 0.70×",
    );
    const ours = result("ours", [load({ ttfe: 3.0 })]);
    expect(verdict(targetVerdicts([ours, sdk, floor]), "postgres.firstEvent").detail).not.toContain("floor-durable");
  });

  it("says what was not run instead of judging a figure that is missing", () => {
    const ours = result("ours", [load({ tasksPerSecond: 500, cpuMsPerTask: 1 })]);
    const verdicts = targetVerdicts([ours]);
    expect(verdict(verdicts, "postgres.tasks")).toMatchObject({ status: "NOT MEASURED", met: null });
    expect(verdict(verdicts, "postgres.tasks").detail).toContain("sdk was not run");
    const sdk = result("sdk", [load({ tasksPerSecond: 1000, cpuMsPerTask: 1 })]);
    expect(verdict(targetVerdicts([ours, sdk]), "postgres.getTask").detail).toContain("the gettask phase not run");
  });

  it("judges memory per stream at 5,000 streams and gives what each stream past the first count costs", () => {
    const scenario = (points: Array<[number, number]>): StreamScenario => ({
      kind: "task",
      baseline: { rssKiB: 0, rssAfterGcKiB: 0, heapKiB: 0 },
      points: points.map(([streams, kib]) => ({
        requested: streams,
        streams,
        memory: { rssKiB: 0, rssAfterGcKiB: 0, heapKiB: 0 },
        perStream: { rssKiB: kib, rssAfterGcKiB: kib, heapKiB: kib / 2 },
      })),
      openPerSecond: 1000,
      failedToOpen: 0,
      dropped: 0,
      idleCpu: 0.01,
    });
    // 1,000 streams at 40 KiB each, 5,000 at 24: the 4,000 after the first cost (120,000 − 40,000) / 4,000.
    const ours = result("ours", [load({})], {
      task: scenario([
        [1000, 40],
        [5000, 24],
      ]),
    });
    const rss = verdict(targetVerdicts([ours]), "postgres.streamTaskRss");
    expect(rss.status).toBe("NOT MET");
    expect(rss.figures.ours).toBe(24);
    expect(rss.figures.marginalKiB).toBe(20);
    const lean = result("ours", [load({})], {
      task: scenario([
        [1000, 25],
        [5000, 19.5],
      ]),
    });
    expect(verdict(targetVerdicts([lean]), "postgres.streamTaskRss").status).toBe("MET");
  });
});
