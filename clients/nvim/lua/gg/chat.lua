-- The chat buffer: a markdown scratch buffer per session that run events stream into.
local util = require("gg.util")

local M = {}

--- Create the chat buffer for a session (scratch, filetype markdown).
function M.create(session_id, title)
  local buf = vim.api.nvim_create_buf(true, true)
  vim.api.nvim_buf_set_option(buf, "buftype", "nofile")
  vim.api.nvim_buf_set_option(buf, "bufhidden", "hide")
  vim.api.nvim_buf_set_option(buf, "swapfile", false)
  vim.api.nvim_buf_set_option(buf, "filetype", "markdown")
  vim.api.nvim_buf_set_var(buf, "gg_session_id", session_id)
  M.set_title(buf, session_id, title)
  vim.api.nvim_buf_set_option(buf, "modifiable", false)
  return buf
end

--- Name the buffer after the session (gg://<title> [id]); a clash keeps the old name.
function M.set_title(buf, session_id, title)
  local name = "gg://" .. (title and title ~= "" and (title .. " ") or "") .. "[" .. session_id .. "]"
  pcall(vim.api.nvim_buf_set_name, buf, name)
end

--- Show the buffer in a window (reuse one that shows it, else open_cmd), return the window.
function M.show(buf, open_cmd)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf then
      return win
    end
  end
  vim.cmd(open_cmd or "botright vsplit")
  local win = vim.api.nvim_get_current_win()
  vim.api.nvim_win_set_buf(win, buf)
  vim.api.nvim_win_set_option(win, "wrap", true)
  vim.api.nvim_win_set_option(win, "linebreak", true)
  return win
end

-- Windows whose cursor sits on the last line follow the stream; others keep their place.
local function followers(buf)
  local out = {}
  local last = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_buf(win) == buf and vim.api.nvim_win_get_cursor(win)[1] >= last then
      table.insert(out, win)
    end
  end
  return out
end

local function with_modifiable(buf, fn)
  if not vim.api.nvim_buf_is_valid(buf) then
    return
  end
  local wins = followers(buf)
  vim.api.nvim_buf_set_option(buf, "modifiable", true)
  local ok, err = pcall(fn)
  vim.api.nvim_buf_set_option(buf, "modifiable", false)
  local last = vim.api.nvim_buf_line_count(buf)
  for _, win in ipairs(wins) do
    pcall(vim.api.nvim_win_set_cursor, win, { last, 0 })
  end
  if not ok then
    error(err)
  end
end

-- Buffers whose last write was a block: the next streamed text starts a new paragraph.
local after_block = {}

local function is_empty(buf)
  return vim.api.nvim_buf_line_count(buf) == 1 and vim.api.nvim_buf_get_lines(buf, 0, 1, false)[1] == ""
end

local function expand(lines)
  local out = {}
  for _, l in ipairs(lines) do
    for _, piece in ipairs(util.split_lines(l)) do
      table.insert(out, piece)
    end
  end
  return out
end

--- Append streamed text at the end of the buffer (continues the last line).
function M.append(buf, text)
  if text == nil or text == "" then
    return
  end
  if after_block[buf] then
    text = text:gsub("^\n+", "") -- the paragraph break is already there
    if text == "" then
      return
    end
  end
  with_modifiable(buf, function()
    local pieces = util.split_lines(text)
    if after_block[buf] then
      after_block[buf] = nil
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "", "" }) -- separator + the line to stream into
    end
    local n = vim.api.nvim_buf_line_count(buf)
    local last = vim.api.nvim_buf_get_lines(buf, n - 1, n, false)[1] or ""
    pieces[1] = last .. pieces[1]
    vim.api.nvim_buf_set_lines(buf, n - 1, n, false, pieces)
  end)
end

--- Append whole lines as a new paragraph (separated by one blank line).
function M.block(buf, lines)
  with_modifiable(buf, function()
    if is_empty(buf) then
      vim.api.nvim_buf_set_lines(buf, 0, -1, false, expand(lines))
    else
      local out = expand(lines)
      table.insert(out, 1, "")
      vim.api.nvim_buf_set_lines(buf, -1, -1, false, out)
    end
    after_block[buf] = true
  end)
end

--- Forget a buffer's contents (before a redraw).
function M.clear(buf)
  with_modifiable(buf, function()
    vim.api.nvim_buf_set_lines(buf, 0, -1, false, {})
  end)
  after_block[buf] = nil
end

--- The lines of a markdown heading section: heading, blank, body.
local function section(heading, body)
  local lines = { "## " .. heading, "" }
  if body and body ~= "" then
    table.insert(lines, body)
  end
  return lines
end

--- Write the header of a new turn: the prompt, then the agent heading that deltas stream under.
function M.turn(buf, prompt)
  M.block(buf, section("You", prompt))
  M.block(buf, { "## gg" })
end

--- Render a session snapshot (replaces the buffer contents).
function M.render_snapshot(buf, snapshot)
  M.clear(buf)
  for _, msg in ipairs(util.nn(snapshot.messages) or {}) do
    local text = util.content_text(msg.content)
    if msg.role == "user" then
      M.block(buf, section("You", text))
    elseif msg.role == "assistant" then
      local lines = section("gg", text)
      for _, call in ipairs(util.nn(msg.toolCalls) or {}) do
        table.insert(lines, string.format("- tool `%s`", call.name))
      end
      M.block(buf, lines)
    elseif msg.role == "tool" then
      local mark = util.nn(msg.isError) and "failed" or "done"
      M.block(buf, { string.format("- `%s` %s: %s", util.nn(msg.toolName) or "tool", mark, util.first_line(text, 100)) })
    end
  end
end

--- "_2350 tokens (1800 cached) · $0.0029_" of a run's usage; nil without a known cost (the
--- model has no price: the buffer stays as it was).
function M.spent(usage)
  usage = util.nn(usage)
  if type(usage) ~= "table" or type(util.nn(usage.costUsd)) ~= "number" then
    return nil
  end
  local cached = util.nn(usage.cacheReadTokens) or 0
  local extra = cached > 0 and string.format(" (%d cached)", cached) or ""
  return string.format("_%d tokens%s · $%.4f_", util.nn(usage.totalTokens) or 0, extra, usage.costUsd)
end

--- Render one gg/run.event into the buffer; returns nothing (state lives in init.lua).
function M.render_event(buf, ev)
  local t = ev.type
  if t == "text_delta" then
    M.append(buf, ev.text)
  elseif t == "tool_call_start" then
    M.block(buf, { string.format("- tool `%s`: %s", ev.toolName, util.first_line(ev.summary, 100)) })
  elseif t == "tool_call_finish" then
    local mark = util.nn(ev.isError) and "failed" or "done"
    M.block(buf, { string.format("  `%s` %s: %s", ev.toolName, mark, util.first_line(ev.output, 100)) })
  elseif t == "approval_requested" then
    local a = ev.approval
    local lines = { "**Approval needed:** " .. util.approval_prompt(a) .. " (:GGApprove / :GGDeny)" }
    local details = util.nn(a.details)
    local diff = type(details) == "table" and util.nn(details.diff) or (type(details) == "string" and details or nil)
    if diff and diff ~= "" then
      -- details is a unified diff for edits and overwrites, the new content for a created file.
      local is_diff = diff:find("^%-%-%- ") or diff:find("^@@") or diff:find("\n@@")
      table.insert(lines, is_diff and "```diff" or "```")
      table.insert(lines, (diff:gsub("\n$", "")))
      table.insert(lines, "```")
    end
    M.block(buf, lines)
  elseif t == "approval_resolved" then
    local verb = util.nn(ev.allow) and "allowed" or "denied"
    M.block(buf, { string.format("_Approval %s (%s)._", verb, util.nn(ev.by) or "user") })
  elseif t == "user_message" then
    M.block(buf, section("You (steering)", ev.text))
    M.block(buf, { "## gg" })
  elseif t == "compaction" then
    M.block(buf, { "_Context compacted._" })
  elseif t == "run_failed" then
    M.block(buf, { "**Run failed:** " .. util.first_line(util.nn(ev.error) or "unknown error", 300) })
    local line = M.spent(ev.usage)
    if line then
      M.block(buf, { line })
    end
  elseif t == "run_canceled" then
    M.block(buf, { "_Run canceled._" })
  elseif t == "run_completed" then
    local line = M.spent(ev.usage)
    if line then
      M.block(buf, { line })
    end
    M.block(buf, { "---" })
  end
end

return M
