-- Neovim plugin scenarios, run by tests/e2e/clients/test_nvim*.py (one scenario per nvim process).
-- GG_TEST_ARGS: {scenario, cmd, cmd_env?, root, prompt, expect?[], choice?, harness}
local H = dofile(os.getenv("GG_TEST_HARNESS"))
local A = H.args

local gg = require("gg")
gg.setup({ cmd = A.cmd, cmd_env = A.cmd_env, root_dir = A.root })
if A.protocol_major then
  -- Pretend this plugin speaks another major, so the real daemon's answer is the foreign one.
  require("gg.rpc").PROTOCOL_MAJOR = A.protocol_major
end

local function buf()
  return gg.status().buf
end

local function wait_finished(n, ms)
  H.wait(ms or 15000, function()
    local b = buf()
    if b and H.text(b):find("**Could not start:**", 1, true) then
      error("the run did not start: " .. H.text(b):match("%*%*Could not start:%*%*[^\n]*"))
    end
    return H.finished >= n
  end, n .. " finished run(s)")
end

-- Wait until the test process writes the file at path (a predicate, not a sleep).
local function wait_file(path, what)
  H.wait(20000, function()
    local f = io.open(path, "r")
    if f then
      f:close()
      return true
    end
  end, what)
end

-- Error-level notifications shown to the user.
local function errors()
  local out = {}
  for _, n in ipairs(H.notes) do
    if n.level == vim.log.levels.ERROR then
      table.insert(out, n.msg)
    end
  end
  return out
end

local scenarios = {}

-- A plain streamed answer lands in a markdown chat buffer, in order, under the prompt.
function scenarios.stream(data)
  vim.cmd("GG " .. A.prompt)
  wait_finished(1)
  local text = H.text(buf())
  data.buffer = text
  H.check(vim.api.nvim_buf_get_option(buf(), "filetype") == "markdown", "chat buffer filetype markdown")
  H.check(text:find("## You\n\n" .. A.prompt, 1, true) ~= nil, "the prompt is shown")
  for _, e in ipairs(A.expect or {}) do
    H.check(text:find(e, 1, true) ~= nil, "buffer contains " .. vim.inspect(e))
  end
  H.check(gg.status().run_id == nil, "no run is active after completion")
  -- A second :GG continues the same session.
  local sid = gg.status().session_id
  data.session_id = sid
  vim.cmd("GG " .. A.prompt2)
  wait_finished(2)
  H.check(gg.status().session_id == sid, "second prompt continues the session")
  data.buffer = H.text(buf())
  for _, e in ipairs(A.expect2 or {}) do
    H.check(data.buffer:find(e, 1, true) ~= nil, "buffer contains " .. vim.inspect(e))
  end
end

-- The approval prompt is a vim.ui.select; its answer goes back as gg/run.approve.
function scenarios.approve_select(data)
  H.answer_selects(function(_, opts, labels)
    if opts.kind == "gg.approval" then
      return H.index_of(labels, A.choice)
    end
  end)
  vim.cmd("GG " .. A.prompt)
  wait_finished(1, 20000)
  data.session_id = gg.status().session_id
  data.buffer = H.text(buf())
  H.check(#H.selects >= 1, "an approval prompt was shown")
  H.check(H.selects[1].kind == "gg.approval", "the prompt is an approval")
  H.check(vim.deep_equal(H.selects[1].labels, { "Allow", "Allow for session", "Deny" }), "choices Allow / Allow for session / Deny")
  for _, e in ipairs(A.expect or {}) do
    H.check(data.buffer:find(e, 1, true) ~= nil, "buffer contains " .. vim.inspect(e))
  end
  H.check(gg.status().pending == 0, "nothing left pending")
end

-- Dismissing the prompt leaves the approval pending; :GGApprove / :GGDeny answer it.
function scenarios.approve_command(data)
  H.answer_selects(function()
    return nil
  end)
  vim.cmd("GG " .. A.prompt)
  H.wait(15000, function()
    return gg.status().pending == 1 and #H.selects == 1
  end, "a pending approval")
  vim.cmd(A.command)
  wait_finished(1, 20000)
  data.buffer = H.text(buf())
  for _, e in ipairs(A.expect or {}) do
    H.check(data.buffer:find(e, 1, true) ~= nil, "buffer contains " .. vim.inspect(e))
  end
  H.check(gg.status().pending == 0, "nothing left pending")
end

-- :GGCancel stops a streaming turn.
function scenarios.cancel(data)
  vim.cmd("GG " .. A.prompt)
  H.wait(15000, function()
    return buf() and H.text(buf()):find(A.expect_before, 1, true) ~= nil
  end, "streamed text before cancel")
  H.check(gg.status().run_id ~= nil, "a run is active")
  data.run_id = gg.status().run_id
  data.session_id = gg.status().session_id
  vim.cmd("GGCancel")
  wait_finished(1)
  data.buffer = H.text(buf())
  H.check(data.buffer:find("_Run canceled._", 1, true) ~= nil, "the buffer says canceled")
  H.check(gg.status().run_id == nil, "no run is active after cancel")
end

-- :GGSessions lists sessions through vim.ui.select and opens the chosen one into a buffer.
function scenarios.sessions(data)
  vim.cmd("GG " .. A.prompt)
  wait_finished(1)
  local first = gg.status().session_id
  vim.cmd("GGNew")
  H.wait(5000, function()
    return gg.status().session_id ~= first
  end, "a new session")
  H.answer_selects(function(items)
    for i, it in ipairs(items) do
      if it.id == first then
        return i
      end
    end
  end)
  vim.cmd("GGSessions")
  H.wait(5000, function()
    return gg.status().session_id == first
  end, "the first session reopened")
  data.buffer = H.text(buf())
  H.check(H.selects[1].kind == "gg.session", "a session picker was shown")
  H.check(#H.selects[1].labels >= 2, "both sessions listed")
  H.check(data.buffer:find("## You\n\n" .. A.prompt, 1, true) ~= nil, "the reopened buffer shows the conversation")
end

-- Sessions without runs: two :GGNew, then :GGSessions reopens the first (works on any ggd).
function scenarios.new_and_pick(data)
  vim.cmd("GGNew")
  H.wait(10000, function()
    return gg.status().session_id ~= nil
  end, "a first session")
  local first = gg.status().session_id
  vim.cmd("GGNew")
  H.wait(10000, function()
    return gg.status().session_id ~= first
  end, "a second session")
  H.answer_selects(function(items)
    for i, it in ipairs(items) do
      if it.id == first then
        return i
      end
    end
  end)
  vim.cmd("GGSessions")
  H.wait(10000, function()
    return gg.status().session_id == first
  end, "the first session reopened")
  data.labels = H.selects[1].labels
  data.workspace = require("gg.rpc").info().workspace
  H.check(#H.selects[1].labels == 2, "both sessions listed")
end

-- Reopening a session whose turn is running follows it (resyncing when the replay expired), then cancels.
function scenarios.reopen_running(data)
  vim.cmd("GG " .. A.prompt)
  -- The expired case streams ~4.5 MB of thinking first: on a loaded machine that alone can take
  -- more than 10 s to reach the buffer (the run_nvim bound is 60 s).
  H.wait(30000, function()
    return buf() and H.text(buf()):find("Thinking.", 1, true) ~= nil
  end, "the first session streaming")
  local first = gg.status().session_id
  vim.cmd("GGNew")
  H.wait(10000, function()
    return gg.status().session_id ~= first
  end, "a second session")
  if A.wait_file then
    wait_file(A.wait_file, "the test to let the replay expire")
  end
  H.answer_selects(function(items)
    for i, it in ipairs(items) do
      if it.id == first then
        return i
      end
    end
  end)
  vim.cmd("GGSessions")
  H.wait(10000, function()
    return gg.status().session_id == first and gg.status().run_id ~= nil
  end, "the running session reopened and followed")
  local before = #H.text(buf())
  H.wait(10000, function()
    return #H.text(buf()) > before
  end, "live text after reopening")
  data.reopened = H.text(buf())
  data.run_id = gg.status().run_id
  vim.cmd("GGCancel")
  wait_finished(1)
  data.buffer = H.text(buf())
  data.errors = errors()
  H.check(data.buffer:find("_Run canceled._", 1, true) ~= nil, "the reopened buffer shows the cancel")
  H.check(H.selects[1].labels[1]:find("[running]", 1, true) ~= nil or H.selects[1].labels[2]:find("[running]", 1, true) ~= nil, "the picker marks the running session")
end

-- :GG while a turn runs steers it; the daemon's user_message shows as a steering section.
function scenarios.steer(data)
  vim.cmd("GG " .. A.prompt)
  H.wait(10000, function()
    return buf() and H.text(buf()):find(A.expect_before, 1, true) ~= nil
  end, "the first streamed text")
  vim.cmd("GG " .. A.steer)
  wait_finished(1, 20000)
  data.buffer = H.text(buf())
  H.check(data.buffer:find("## You (steering)\n\n" .. A.steer, 1, true) ~= nil, "the steering text is shown")
  for _, e in ipairs(A.expect or {}) do
    H.check(data.buffer:find(e, 1, true) ~= nil, "buffer contains " .. vim.inspect(e))
  end
end

-- A turn another client starts on the open session streams into this buffer too.
function scenarios.follow(data)
  vim.cmd("GGNew")
  H.wait(10000, function()
    return gg.status().session_id ~= nil
  end, "a session")
  local f = assert(io.open(A.signal, "w"))
  f:write(gg.status().session_id)
  f:close()
  wait_finished(1, 20000)
  data.buffer = H.text(buf())
  for _, e in ipairs(A.expect or {}) do
    H.check(data.buffer:find(e, 1, true) ~= nil, "buffer contains " .. vim.inspect(e))
  end
end

-- The pure helpers (no server is started).
function scenarios.util(data)
  local util = require("gg.util")
  H.check(vim.deep_equal(util.split_lines("a\nb\n"), { "a", "b", "" }), "split keeps the trailing empty piece")
  H.check(vim.deep_equal(util.split_lines(""), { "" }), "split of empty")
  H.check(util.content_text({ { type = "text", text = "a" }, "b" }) == "ab", "content parts flatten")
  H.check(util.content_text(vim.NIL) == "", "null content")
  H.check(util.major("1.4") == "1" and util.major(nil) == nil, "major version")
  H.check(util.approval_prompt({ toolName = "bash", summary = "rm x", risk = "dangerous", riskReason = "deletes" }) == "gg wants to run bash: rm x [dangerous] (deletes)", "approval prompt")
  H.check(util.approval_prompt({ toolName = "write", summary = "w", risk = "normal", riskReason = vim.NIL }) == "gg wants to run write: w", "normal risk is not shown")
  H.check(util.session_label({ id = "s1", name = "", preview = "fix the\nbug", messageCount = 2, activeRunId = vim.NIL }) == "fix the bug (2 msgs)", "label falls back to preview")
  H.check(util.session_label({ id = "s1", name = vim.NIL, preview = "", messageCount = 0, activeRunId = "r" }) == "s1 (0 msgs) [running]", "label falls back to id")
  H.check(#util.session_label({ id = "s", name = string.rep("x", 100), messageCount = 1 }) < 80, "long names are cut")
  H.check(require("gg.rpc").client_id() == nil, "setup does not connect by itself")
  data.ok = true
end

-- A server with another protocol major is refused with a clear message.
function scenarios.version(data)
  vim.cmd("GG hello")
  H.wait(5000, function()
    for _, n in ipairs(H.notes) do
      if n.msg:find("unsupported gg protocol", 1, true) then
        return true
      end
    end
  end, "a protocol refusal")
  H.wait(5000, function()
    return require("gg.rpc").client_id() == nil
  end, "the client to stop")
  H.check(gg.status().session_id == nil, "no session was opened")
  data.ok = true
end

-- :GGDiff shows the last turn's files and patch; :GGUndo and :GGRedo show theirs and ask first.
function scenarios.files(data)
  H.answer_selects(function(_, opts, labels)
    if opts.kind == "gg.approval" then
      return H.index_of(labels, "Allow")
    end
    if opts.kind == "gg.restore" then
      return 1 -- Restore
    end
  end)
  vim.cmd("GG " .. A.prompt)
  wait_finished(1, 20000)
  local function restored(n)
    H.wait(15000, function()
      local count = 0
      for _, note in ipairs(H.notes) do
        if note.msg:find("file%(s%) restored") then
          count = count + 1
        end
      end
      return count >= n
    end, n .. " restore(s)")
  end
  vim.cmd("GGDiff")
  H.wait(10000, function()
    return require("gg.files").last_buf ~= nil
  end, "the diff buffer")
  data.diff = H.text(require("gg.files").last_buf)
  vim.cmd("GGUndo")
  restored(1)
  data.after_undo = H.text(require("gg.files").last_buf)
  local f = io.open(A.root .. "/notes.txt", "r")
  data.exists_after_undo = f ~= nil
  if f then
    f:close()
  end
  vim.cmd("GGRedo")
  restored(2)
  local g = io.open(A.root .. "/notes.txt", "r")
  data.after_redo = g and g:read("*a") or nil
  if g then
    g:close()
  end
  H.wait(10000, function()
    for _, note in ipairs(H.notes) do
      if note.msg:find("workspace files: redo done", 1, true) then
        return true
      end
    end
  end, "the files_restored notice")
  data.ok = true
end

H.run(function(data)
  local fn = scenarios[A.scenario]
  H.check(fn ~= nil, "unknown scenario " .. tostring(A.scenario))
  fn(data)
end)
