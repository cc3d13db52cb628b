import { describe, expect, it } from "vitest";
import {
  describeSchedule,
  formatDuration,
  formatInZone,
  nextRunLabels,
  noNextRunReason,
  statusLabel,
} from "../src/jobs/format";
import type { Job, RunRecord } from "../src/protocol";

const job = (over: Partial<Job> = {}): Job => ({
  id: "j_1",
  name: "nightly",
  kind: "cron",
  schedule: "30 2 * * *",
  prompt: "p",
  timezone: "Europe/Berlin",
  workspace: "w_1",
  enabled: true,
  createdAt: 0,
  // 2027-03-29T00:30:00Z: 02:30 CEST in Berlin, 20:30 EDT the day before in New York.
  nextRun: Date.UTC(2027, 2, 29, 0, 30),
  ...over,
});

const run = (over: Partial<RunRecord> = {}): RunRecord => ({
  id: "jr_1",
  jobId: "j_1",
  startedAt: 1_000_000,
  status: "ok",
  ...over,
});

describe("job time formatting", () => {
  it("shows the next run in the job's zone and in the browser's", () => {
    const labels = nextRunLabels(job(), "America/New_York");
    expect(labels?.job).toMatch(/Mon,? 29 Mar 2027, 02:30 (CEST|GMT\+2)/);
    expect(labels?.local).toMatch(/Sun,? 28 Mar 2027, 20:30 (EDT|GMT-4)/);
  });

  it("shows one label when the browser is in the job's zone", () => {
    expect(nextRunLabels(job(), "Europe/Berlin")?.local).toBeNull();
  });

  it("knows the DST offset of the instant, not of today", () => {
    // 2027-03-28T01:30Z is the 02:30 that does not exist that day: 03:30 CEST.
    expect(formatInZone(Date.UTC(2027, 2, 28, 1, 30), "Europe/Berlin")).toMatch(/03:30 (CEST|GMT\+2)/);
    // The two 02:30s of 2027-10-31, an hour apart, are told apart by their zone names.
    const first = formatInZone(Date.UTC(2027, 9, 31, 0, 30), "Europe/Berlin");
    const second = formatInZone(Date.UTC(2027, 9, 31, 1, 30), "Europe/Berlin");
    expect(first).toMatch(/02:30 (CEST|GMT\+2)/);
    expect(second).toMatch(/02:30 (CET|GMT\+1)/);
  });

  it("falls back to UTC for a zone the browser does not know", () => {
    expect(formatInZone(Date.UTC(2027, 0, 2, 3, 4), "Mars/Olympus")).toBe("2027-01-02 03:04 UTC");
  });

  it("has no next run for paused and finished jobs, and says why", () => {
    expect(nextRunLabels(job({ enabled: false }))).toBeNull();
    expect(noNextRunReason(job({ enabled: false }))).toBe("paused");
    const done = job({ kind: "once", schedule: "2027-03-28T09:00:00+02:00", nextRun: null });
    expect(nextRunLabels(done)).toBeNull();
    expect(noNextRunReason(done)).toBe("done");
  });

  it("describes schedules", () => {
    expect(describeSchedule(job())).toBe("cron 30 2 * * *");
    expect(describeSchedule(job({ kind: "once", schedule: "2027-03-28T09:00:00+02:00" }))).toBe(
      "once 2027-03-28 09:00",
    );
  });

  it("formats durations and statuses", () => {
    expect(formatDuration(run({ finishedAt: 1_042_000 }))).toBe("42 s");
    expect(formatDuration(run({ finishedAt: 1_065_000 }))).toBe("1 min 5 s");
    expect(formatDuration(run({ finishedAt: 1_000_000 + 7_380_000 }))).toBe("2 h 3 min");
    expect(formatDuration(run({ finishedAt: null }))).toBeNull();
    expect(statusLabel(undefined)).toBe("never run");
    expect(statusLabel("skipped")).toBe("skipped (still running)");
    expect(statusLabel("timeout")).toBe("timed out");
  });
});
