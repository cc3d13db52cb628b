import type { Job, RunRecord } from "../protocol";

/** The browser's IANA time zone (UTC when the platform does not say). */
export function browserZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

/** `Tue, 1 Dec 2026, 02:30 CET`: an instant as wall time in a zone, with the zone's short name. */
export function formatInZone(ms: number, zone: string, locale = "en-GB"): string {
  try {
    return new Intl.DateTimeFormat(locale, {
      timeZone: zone,
      weekday: "short",
      day: "numeric",
      month: "short",
      year: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      timeZoneName: "short",
    }).format(new Date(ms));
  } catch {
    // An unknown zone (the job's came from another machine's tz database): say it in UTC.
    return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
  }
}

export interface NextRun {
  /** In the job's own time zone. */
  job: string;
  /** In the browser's, or null when it is the same zone. */
  local: string | null;
}

/** When a job fires next, in its zone and (if different) the browser's; null when it will not. */
export function nextRunLabels(job: Job, zone = browserZone(), locale = "en-GB"): NextRun | null {
  if (job.enabled === false || job.nextRun == null) return null;
  const inJob = formatInZone(job.nextRun, job.timezone, locale);
  const inBrowser = formatInZone(job.nextRun, zone, locale);
  return { job: inJob, local: zone === job.timezone || inBrowser === inJob ? null : inBrowser };
}

/** Why a job has no next run: paused, or a once job that already fired. */
export function noNextRunReason(job: Job): string {
  if (job.enabled === false) return "paused";
  return job.kind === "once" ? "done" : "not scheduled";
}

/** `cron 30 2 * * *` or `once 2027-03-28 09:00` (a once job's RFC 3339 time, without seconds). */
export function describeSchedule(job: Job): string {
  if (job.kind === "cron") return `cron ${job.schedule}`;
  const m = /^(\d{4}-\d\d-\d\d)T(\d\d:\d\d)/.exec(job.schedule);
  return m ? `once ${m[1]} ${m[2]}` : `once ${job.schedule}`;
}

/** `1 min 5 s`, `42 s`, `2 h 3 min`: how long a run took (null while it runs). */
export function formatDuration(run: RunRecord): string | null {
  if (run.finishedAt == null) return null;
  const s = Math.max(0, Math.round((run.finishedAt - run.startedAt) / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  return m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${Math.floor(m / 60)} h`;
}

/** The status as a word a person reads. */
export function statusLabel(status: RunRecord["status"] | undefined): string {
  switch (status) {
    case undefined:
      return "never run";
    case "ok":
      return "ok";
    case "running":
      return "running";
    case "error":
      return "error";
    case "timeout":
      return "timed out";
    case "skipped":
      return "skipped (still running)";
    case "interrupted":
      return "interrupted";
  }
}
