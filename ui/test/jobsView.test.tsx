import { act, cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { JobsView } from "../src/components/JobsView";
import type { Job, RunRecord } from "../src/protocol";
import type { GgClient } from "../src/rpc/client";

afterEach(cleanup);

const JOB: Job = {
  id: "j_1",
  name: "nightly",
  kind: "cron",
  schedule: "30 2 * * *",
  prompt: "check the build",
  timezone: "UTC",
  workspace: "w_1",
  enabled: true,
  createdAt: 0,
  nextRun: Date.UTC(2027, 0, 5, 2, 30),
};
const RUN: RunRecord = {
  id: "jr_1",
  jobId: "j_1",
  startedAt: Date.UTC(2027, 0, 4, 2, 30),
  finishedAt: Date.UTC(2027, 0, 4, 2, 31),
  status: "ok",
  summary: "all green",
  sessionId: "s_9",
};

/** A client double: answers gg/job.* from state and lets the test push notifications. */
function fakeClient(scheduler = "running") {
  const state = { job: { ...JOB }, runs: [] as RunRecord[] };
  const listeners = new Set<(method: string, params: unknown) => void>();
  const call = vi.fn(async (method: string) => {
    if (method === "gg/job.list")
      return { jobs: [state.job], scheduler, lastStatus: state.runs.length ? { j_1: state.runs[0].status } : {} };
    if (method === "gg/job.log") return { runs: state.runs };
    if (method === "gg/job.pause") state.job = { ...state.job, enabled: false };
    if (method === "gg/job.resume") state.job = { ...state.job, enabled: true };
    if (method === "gg/job.run") state.runs = [RUN];
    return { job: state.job, run: RUN };
  });
  const client = {
    call,
    transport: {
      onNotification: (fn: (method: string, params: unknown) => void) => {
        listeners.add(fn);
        return () => listeners.delete(fn);
      },
    },
  } as unknown as GgClient;
  const notify = (method: string) => listeners.forEach((fn) => fn(method, {}));
  return { client, call, state, notify };
}

describe("JobsView", () => {
  it("lists jobs, runs one now and opens the run's session", async () => {
    const { client, call } = fakeClient();
    const onOpen = vi.fn();
    render(<JobsView client={client} onOpenSession={onOpen} />);
    const row = await screen.findByText("nightly");
    expect(row).toBeTruthy();
    expect(screen.getByTestId("job-next").textContent).toMatch(/02:30 UTC/);
    expect(screen.getByTestId("job-last").textContent).toBe("never run");
    fireEvent.click(screen.getByRole("button", { name: "Run nightly now" }));
    await waitFor(() => expect(screen.getByTestId("job-last").textContent).toBe("ok"));
    expect(call).toHaveBeenCalledWith("gg/job.run", { job: "j_1" });
    fireEvent.click(screen.getByTestId("open-session"));
    expect(onOpen).toHaveBeenCalledWith("s_9");
  });

  it("pauses and resumes", async () => {
    const { client } = fakeClient();
    render(<JobsView client={client} onOpenSession={() => undefined} />);
    fireEvent.click(await screen.findByRole("button", { name: "Pause nightly" }));
    await screen.findByRole("button", { name: "Resume nightly" });
    expect(screen.getByTestId("job-next").textContent).toBe("paused");
  });

  it("re-reads on gg/job.event and says when jobs do not fire here", async () => {
    const { client, state, notify } = fakeClient("disabled: another ggd (pid 7) owns the channels");
    const onJobEvent = vi.fn();
    render(<JobsView client={client} onOpenSession={() => undefined} onJobEvent={onJobEvent} />);
    expect((await screen.findByTestId("jobs-scheduler")).textContent).toContain("pid 7");
    state.runs = [{ ...RUN, status: "error", summary: "the model refused" }];
    act(() => notify("gg/job.event"));
    await screen.findByText("the model refused");
    expect(onJobEvent).toHaveBeenCalledTimes(1);
    act(() => notify("gg/session.event"));
    expect(onJobEvent).toHaveBeenCalledTimes(1);
  });
});
