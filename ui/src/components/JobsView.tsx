import { useCallback, useEffect, useState } from "react";
import type { Job, RunRecord } from "../protocol";
import type { GgClient } from "../rpc/client";
import {
  browserZone,
  describeSchedule,
  formatDuration,
  formatInZone,
  nextRunLabels,
  noNextRunReason,
  statusLabel,
} from "../jobs/format";
import "./JobsView.css";

export interface JobsViewProps {
  client: GgClient;
  /** Open a run's session in the conversation view. */
  onOpenSession: (sessionId: string) => void;
  /** A job fired or finished: its session is new or changed (the session list re-reads). */
  onJobEvent?: () => void;
}

interface JobsState {
  jobs: Job[];
  lastStatus: Record<string, RunRecord["status"]>;
  scheduler: string;
  runs: RunRecord[];
}

const EMPTY: JobsState = { jobs: [], lastStatus: {}, scheduler: "running", runs: [] };

/** Scheduled jobs of the workspace: next runs, last status, pause/resume, run now, the run log. */
export function JobsView({ client, onOpenSession, onJobEvent }: JobsViewProps) {
  const [state, setState] = useState<JobsState>(EMPTY);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const zone = browserZone();

  const load = useCallback(async () => {
    try {
      const [list, log] = await Promise.all([client.call("gg/job.list", {}), client.call("gg/job.log", { limit: 50 })]);
      setState({
        jobs: list.jobs,
        lastStatus: list.lastStatus ?? {},
        scheduler: list.scheduler,
        runs: log.runs,
      });
      setError(null);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setLoaded(true);
    }
  }, [client]);

  useEffect(() => {
    void load();
    // Jobs fired or finished (here or by the schedule): the daemon says so, we re-read.
    return client.transport.onNotification((method) => {
      if (method !== "gg/job.event") return;
      void load();
      onJobEvent?.();
    });
  }, [client, load, onJobEvent]);

  const act = async (method: "gg/job.pause" | "gg/job.resume" | "gg/job.run", job: Job) => {
    try {
      await client.call(method, { job: job.id });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    }
    await load();
  };

  const names = Object.fromEntries(state.jobs.map((j) => [j.id, j.name]));

  return (
    <section className="jobs-view" data-testid="jobs-view" aria-label="Scheduled jobs">
      {state.scheduler !== "running" ? (
        <div className="jobs-note" role="note" data-testid="jobs-scheduler">
          Jobs do not fire in this daemon: {state.scheduler}
        </div>
      ) : null}
      {error ? (
        <div className="jobs-note error" role="alert">
          {error}
        </div>
      ) : null}
      <h2>Jobs</h2>
      {loaded && state.jobs.length === 0 ? (
        <p className="muted" data-testid="jobs-empty">
          No jobs in this workspace. Add one with <code>gg job add --cron "0 9 * * 1-5" --name NAME PROMPT</code>.
        </p>
      ) : null}
      {state.jobs.length > 0 ? (
        <table className="jobs-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Schedule</th>
              <th scope="col">Next run</th>
              <th scope="col">Last</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {state.jobs.map((job) => {
              const next = nextRunLabels(job, zone);
              const last = state.lastStatus[job.id];
              return (
                <tr key={job.id} data-testid="job-row" data-name={job.name} data-enabled={job.enabled !== false}>
                  <th scope="row">
                    <span className="job-name">{job.name}</span>
                    <span className="muted job-prompt" title={job.prompt}>
                      {job.prompt}
                    </span>
                  </th>
                  <td>
                    <code>{describeSchedule(job)}</code>
                    <span className="muted">{job.timezone}</span>
                  </td>
                  <td data-testid="job-next">
                    {next ? (
                      <>
                        <span>{next.job}</span>
                        {next.local ? <span className="muted">{next.local} (your time)</span> : null}
                      </>
                    ) : (
                      <span className="muted">{noNextRunReason(job)}</span>
                    )}
                  </td>
                  <td>
                    <span
                      className={`job-status ${last ?? "never"}`}
                      data-testid="job-last"
                      data-status={last ?? "never"}
                    >
                      {statusLabel(last)}
                    </span>
                  </td>
                  <td className="job-actions">
                    <button
                      type="button"
                      className="btn small"
                      data-testid="job-toggle"
                      aria-label={`${job.enabled === false ? "Resume" : "Pause"} ${job.name}`}
                      onClick={() => void act(job.enabled === false ? "gg/job.resume" : "gg/job.pause", job)}
                    >
                      {job.enabled === false ? "Resume" : "Pause"}
                    </button>
                    <button
                      type="button"
                      className="btn small primary"
                      data-testid="job-run-now"
                      aria-label={`Run ${job.name} now`}
                      onClick={() => void act("gg/job.run", job)}
                    >
                      Run now
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <h2>Run log</h2>
      {state.runs.length === 0 ? <p className="muted">No runs yet.</p> : null}
      <ul className="jobs-log" data-testid="job-log">
        {state.runs.map((run) => (
          <li key={run.id} data-testid="run-row" data-status={run.status}>
            <span className={`job-status ${run.status}`}>{statusLabel(run.status)}</span>
            <span className="job-name">{names[run.jobId] ?? run.jobId}</span>
            <span className="muted">{formatInZone(run.startedAt, zone)}</span>
            {formatDuration(run) ? <span className="muted">{formatDuration(run)}</span> : null}
            {run.sessionId ? (
              <a
                href={`#session=${run.sessionId}`}
                data-testid="open-session"
                aria-label={`Open the session of this ${names[run.jobId] ?? "job"} run`}
                onClick={(event) => {
                  event.preventDefault();
                  onOpenSession(run.sessionId ?? "");
                }}
              >
                Open session
              </a>
            ) : null}
            {run.summary ? <p className="job-summary">{run.summary}</p> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
