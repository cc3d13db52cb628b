-- gg for Neovim: a thin client of the gg protocol (chat buffer, sessions, approvals, cancel).
local util = require("gg.util")
local rpc = require("gg.rpc")
local chat = require("gg.chat")
local files = require("gg.files")

local M = {}

M.config = {
  cmd = { "gg", "bridge" }, -- or { "ggd", "--stdio", "--exit-on-stdin-eof" }
  cmd_env = nil,
  root_dir = nil, -- the workspace; default: the cwd when the client starts
  approval_mode = nil, -- auto | on-request | yolo | never | plan; nil = the daemon's default
  open_cmd = "botright vsplit",
  autostart = false, -- start the client in setup() instead of on first use
}

-- sessions[id] = { buf, name, run_id, last_seq = {[runId] = n}, ... }; pending = approvals in arrival order.
M.state = { current = nil, sessions = {}, pending = {}, asking = false }

local function info(msg)
  vim.notify("gg: " .. msg, vim.log.levels.INFO)
end

local function session(id, name)
  local s = M.state.sessions[id]
  if not s then
    s = {
      id = id,
      buf = chat.create(id, name),
      name = name,
      run_id = nil,
      last_seq = {},
      finished = {},
      replaying = {}, -- [runId] = true while a gg/run.subscribe replay is on its way
      held = {}, -- [runId] = {[sequence] = event}: live events that overtook that replay
    }
    M.state.sessions[id] = s
  elseif name and name ~= s.name then
    s.name = name
    chat.set_title(s.buf, id, name)
  end
  if not vim.api.nvim_buf_is_valid(s.buf) then
    s.buf = chat.create(id, s.name)
  end
  return s
end

local function remove_pending(approval_id)
  for i, p in ipairs(M.state.pending) do
    if p.approval.id == approval_id then
      table.remove(M.state.pending, i)
      return p
    end
  end
end

--- Answer a pending approval (allow: bool, scope: "once"|"session").
function M.answer(p, allow, scope)
  if not remove_pending(p.approval.id) then
    return -- already answered here or resolved elsewhere
  end
  rpc.request("gg/run.approve", { runId = p.run_id, approvalId = p.approval.id, allow = allow, scope = scope or "once" }, function(err)
    if err and rpc.error_symbol(err) ~= "approval_expired" then
      rpc.notify_error(rpc.error_message(err))
    end
  end)
end

-- One vim.ui.select at a time; the next pending approval is offered when the previous one is answered.
local function ask_next()
  if M.state.asking then
    return
  end
  local p = M.state.pending[1]
  if not p then
    return
  end
  M.state.asking = true
  vim.ui.select(util.approval_choices, {
    prompt = util.approval_prompt(p.approval),
    format_item = function(c)
      return c.label
    end,
    kind = "gg.approval",
  }, function(choice)
    M.state.asking = false
    if choice then
      M.answer(p, choice.allow, choice.scope)
    end
    -- Dismissing the prompt leaves the approval pending for :GGApprove / :GGDeny.
    if choice then
      vim.schedule(ask_next)
    end
  end)
end

-- Render one event in sequence order and update the session's state.
local function apply_event(s, ev)
  s.last_seq[ev.runId] = ev.sequence
  local t = ev.type
  local terminal = t == "run_completed" or t == "run_failed" or t == "run_canceled"
  if terminal then
    s.finished[ev.runId] = true
  elseif s.run_id == nil and not s.finished[ev.runId] then
    s.run_id = ev.runId -- events can beat the gg/run.start response
  end
  chat.render_event(s.buf, ev)
  if t == "approval_requested" then
    table.insert(M.state.pending, { run_id = ev.runId, session_id = ev.sessionId, approval = ev.approval })
    ask_next()
  elseif t == "approval_resolved" then
    remove_pending(ev.approvalId)
  elseif terminal then
    if s.run_id == ev.runId then
      s.run_id = nil
    end
    for i = #M.state.pending, 1, -1 do
      if M.state.pending[i].run_id == ev.runId then
        table.remove(M.state.pending, i)
      end
    end
    vim.api.nvim_exec_autocmds("User", { pattern = "GGRunFinished", modeline = false })
  end
end

-- Apply the held events that now follow on (all of them, in order, once the replay is over).
local function drain(s, run_id, all)
  local held = s.held[run_id]
  if not held then
    return
  end
  local seqs = vim.tbl_keys(held)
  table.sort(seqs)
  for _, seq in ipairs(seqs) do
    local last = s.last_seq[run_id] or 0
    if seq <= last then
      held[seq] = nil
    elseif seq == last + 1 or all then
      local ev = held[seq]
      held[seq] = nil
      apply_event(s, ev)
    else
      break
    end
  end
  if next(held) == nil then
    s.held[run_id] = nil
  end
end

local function on_run_event(ev)
  local s = M.state.sessions[ev.sessionId]
  if not s then
    return
  end
  local last = s.last_seq[ev.runId] or 0
  if ev.sequence <= last then
    return -- a replay overlap after (re)subscribing
  end
  if s.replaying[ev.runId] and ev.sequence > last + 1 then
    -- A live event overtook the replay this session asked for: keep it until the gap is filled.
    s.held[ev.runId] = s.held[ev.runId] or {}
    s.held[ev.runId][ev.sequence] = ev
    return
  end
  apply_event(s, ev)
  drain(s, ev.runId, false)
end

local function subscribe_run(s, run_id, resynced)
  s.run_id = run_id
  -- This connection may already get the run's live events (it followed the run before): those
  -- can arrive ahead of the replay, so they are held until the replay has filled the gap.
  s.replaying[run_id] = true
  rpc.request("gg/run.subscribe", { runId = run_id, afterSequence = s.last_seq[run_id] or 0 }, function(err)
    local symbol = err and rpc.error_symbol(err)
    if symbol ~= "event_history_expired" or resynced then
      -- The replay precedes this answer: whatever is still held is next, in order.
      s.replaying[run_id] = nil
      drain(s, run_id, true)
    end
    if not err then
      return
    end
    if symbol == "event_history_expired" and not resynced then
      -- The early events left the daemon's ring: redraw from the session, then follow live only.
      rpc.request("gg/run.get", { runId = run_id }, function(e1, status)
        rpc.request("gg/session.get", { sessionId = s.id }, function(e2, snap)
          if e1 or e2 or not status or not snap then
            s.replaying[run_id] = nil
            drain(s, run_id, true)
            return rpc.notify_error("could not reload the session after falling behind")
          end
          chat.render_snapshot(s.buf, snap)
          chat.block(s.buf, { "## gg" })
          s.last_seq[run_id] = status.lastSequence
          subscribe_run(s, run_id, true)
        end)
      end)
    elseif symbol == "run_not_found" then
      s.run_id = nil -- it finished and expired meanwhile
    else
      rpc.notify_error(rpc.error_message(err))
    end
  end)
end

local function on_session_event(ev)
  local s = M.state.sessions[ev.sessionId]
  local t = ev.type
  if t == "approval_pending" and ev.sessionId ~= M.state.current then
    local label = (s and s.name and s.name ~= "") and s.name or ev.sessionId
    info(string.format("session %s waits for an approval (:GGSessions to open it)", label))
  end
  if not s then
    return
  end
  if t == "run_started" and s.run_id == nil and not s.starting then
    -- Another client started a turn here: follow it.
    chat.block(s.buf, { "## gg" })
    subscribe_run(s, ev.runId)
  elseif t == "renamed" then
    s.name = util.nn(ev.name)
    chat.set_title(s.buf, ev.sessionId, s.name)
  elseif t == "run_finished" and s.run_id == ev.runId then
    s.run_id = nil
  elseif t == "files_restored" then
    info(string.format("workspace files: %s done, %d file(s) changed", util.nn(ev.name) or "restore", util.nn(ev.count) or 0))
  end
end

--- Start the connection to ggd (idempotent).
function M.start()
  return rpc.start({
    cmd = M.config.cmd,
    cmd_env = M.config.cmd_env,
    root_dir = M.config.root_dir,
    on_exit = function(code)
      if code ~= 0 then
        rpc.notify_error(string.format("%s exited with code %d", M.config.cmd[1], code))
      end
      M.state.pending = {}
      M.state.asking = false
      for _, s in pairs(M.state.sessions) do
        s.run_id = nil
        s.starting = false
        s.replaying = {}
        s.held = {}
      end
    end,
  }, {
    ["gg/run.event"] = on_run_event,
    ["gg/session.event"] = on_session_event,
  })
end

-- Make id the current session: render its snapshot, follow its active run, subscribe to its events.
local function adopt(snapshot, cb)
  local s = session(snapshot.sessionId, util.nn(snapshot.name))
  M.state.current = snapshot.sessionId
  chat.render_snapshot(s.buf, snapshot)
  chat.show(s.buf, M.config.open_cmd)
  rpc.request("gg/session.subscribe", { sessionId = snapshot.sessionId })
  local active = util.nn(snapshot.activeRunId)
  if active then
    chat.block(s.buf, { "## gg" })
    s.last_seq[active] = nil -- the buffer was redrawn: replay the whole run
    subscribe_run(s, active)
  end
  if cb then
    cb(s)
  end
end

--- Create a new session and make it current; cb(session) when ready.
function M.new_session(cb)
  M.start()
  rpc.request("gg/session.create", {}, function(err, snap)
    if err then
      return rpc.notify_error(rpc.error_message(err))
    end
    adopt(snap, cb)
  end)
end

--- Open a session by id and make it current.
function M.open_session(id, cb)
  M.start()
  rpc.request("gg/session.open", { sessionId = id }, function(err, snap)
    if err then
      return rpc.notify_error(rpc.error_message(err))
    end
    adopt(snap, cb)
  end)
end

local function send(s, prompt)
  if s.run_id then
    -- A turn is running: the text steers it (taken at the next model boundary).
    rpc.request("gg/run.steer", { sessionId = s.id, text = prompt })
    return
  end
  local id = s.id
  chat.show(s.buf, M.config.open_cmd)
  chat.turn(s.buf, prompt)
  s.starting = true
  local params = { sessionId = id, prompt = prompt, interactive = true }
  if M.config.approval_mode then
    params.approvalMode = M.config.approval_mode
  end
  rpc.request("gg/run.start", params, function(err, res)
    s.starting = false
    if err then
      chat.block(s.buf, { "**Could not start:** " .. rpc.error_message(err) })
      return
    end
    if not s.finished[res.runId] then
      s.run_id = res.runId
    end
  end)
end

--- :GG {prompt}: continue the current session (or create one) with a prompt.
function M.ask(prompt)
  if prompt == nil or prompt == "" then
    vim.ui.input({ prompt = "gg> " }, function(text)
      if text and text ~= "" then
        M.ask(text)
      end
    end)
    return
  end
  M.start()
  local s = M.state.current and M.state.sessions[M.state.current]
  if s then
    send(s, prompt)
  else
    M.new_session(function(ns)
      send(ns, prompt)
    end)
  end
end

--- :GGSessions: pick a session of this workspace and open it.
function M.sessions()
  M.start()
  rpc.request("gg/session.list", { limit = 100 }, function(err, res)
    if err then
      return rpc.notify_error(rpc.error_message(err))
    end
    local items = util.nn(res.sessions) or {}
    if #items == 0 then
      return info("no sessions yet; :GG {prompt} starts one")
    end
    vim.ui.select(items, { prompt = "gg sessions", format_item = util.session_label, kind = "gg.session" }, function(choice)
      if choice then
        M.open_session(choice.id)
      end
    end)
  end)
end

--- :GGCancel: cancel the current session's running turn.
function M.cancel()
  local s = M.state.current and M.state.sessions[M.state.current]
  if not (s and s.run_id) then
    return info("nothing is running")
  end
  rpc.request("gg/run.cancel", { runId = s.run_id })
end

--- :GGApprove [session] / :GGDeny: answer the oldest pending approval.
function M.approve(allow, scope)
  local p = M.state.pending[1]
  if not p then
    return info("no approval is pending")
  end
  M.answer(p, allow, scope)
end

-- The current session, or a notice when there is none.
local function current()
  M.start()
  if not M.state.current then
    info("no current session (:GGSessions opens one)")
    return nil
  end
  return M.state.current
end

--- :GGUndo / :GGRedo: the files before the last turn / back again (shown and asked first).
function M.undo(redo)
  local id = current()
  if id then
    files.restore(redo and "gg/session.redo" or "gg/session.undo", { sessionId = id })
  end
end

--- :GGRestore {message id}: restore the files to their state at a message of the tree.
function M.restore(node_id)
  local id = current()
  if id then
    files.restore("gg/session.restore", { sessionId = id, nodeId = node_id })
  end
end

--- :GGDiff [turn id]: what the last turn (or the turn of that user message) changed.
function M.diff(turn)
  local id = current()
  if id then
    files.diff(id, turn)
  end
end

--- The current session id and its running turn (for statuslines and tests).
function M.status()
  local s = M.state.current and M.state.sessions[M.state.current]
  return { session_id = M.state.current, run_id = s and s.run_id, buf = s and s.buf, pending = #M.state.pending }
end

--- Configure the plugin and define its commands.
function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", M.config, opts or {})
  if opts and opts.cmd then
    M.config.cmd = opts.cmd -- lists replace, never merge
  end
  local cmd = vim.api.nvim_create_user_command
  cmd("GG", function(a)
    M.ask(a.args)
  end, { nargs = "*", desc = "gg: ask in the current session (or a new one)" })
  cmd("GGNew", function(a)
    M.new_session(function(s)
      if a.args ~= "" then
        send(s, a.args)
      end
    end)
  end, { nargs = "*", desc = "gg: start a new session" })
  cmd("GGSessions", M.sessions, { desc = "gg: open a session" })
  cmd("GGCancel", M.cancel, { desc = "gg: cancel the running turn" })
  cmd("GGApprove", function(a)
    M.approve(true, a.args == "session" and "session" or "once")
  end, { nargs = "?", complete = function()
    return { "session" }
  end, desc = "gg: allow the pending tool call" })
  cmd("GGDeny", function()
    M.approve(false, "once")
  end, { desc = "gg: deny the pending tool call" })
  cmd("GGUndo", function()
    M.undo(false)
  end, { desc = "gg: restore the files to before the last turn" })
  cmd("GGRedo", function()
    M.undo(true)
  end, { desc = "gg: reapply the files the last undo took back" })
  cmd("GGRestore", function(a)
    M.restore(a.args)
  end, { nargs = 1, desc = "gg: restore the files to a message of the tree" })
  cmd("GGDiff", function(a)
    M.diff(a.args)
  end, { nargs = "?", desc = "gg: what the last turn changed" })
  cmd("GGStop", rpc.stop, { desc = "gg: disconnect from ggd" })
  if M.config.autostart then
    M.start()
  end
end

return M
