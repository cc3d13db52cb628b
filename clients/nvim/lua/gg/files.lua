-- The workspace files of a session (docs/checkpoints.md): :GGUndo, :GGRedo, :GGRestore {id},
-- :GGDiff [turn id]. Every restore shows its files and patch first and asks (vim.ui.select).
local rpc = require("gg.rpc")
local util = require("gg.util")

local M = {}

local MARK = { added = "A", modified = "M", deleted = "D", mode = "T" }

local function info(msg)
  vim.notify("gg: " .. msg, vim.log.levels.INFO)
end

-- The preview's lines: one per file, the conflicts, then the patch.
local function lines_of(title, res)
  local out = { title }
  for _, f in ipairs(util.nn(res.files) or {}) do
    local add, del = util.nn(f.additions), util.nn(f.deletions)
    local counts = add and string.format("+%d -%d", add, del or 0) or "binary"
    table.insert(out, string.format("%s %10s  %s", MARK[f.status] or "?", counts, f.path))
  end
  for _, p in ipairs(util.nn(res.skipped) or {}) do
    table.insert(out, "(skipped, over the size limit: " .. p .. ")")
  end
  for _, p in ipairs(util.nn(res.conflicts) or {}) do
    table.insert(out, "! changed outside gg: " .. p)
  end
  local patch = util.nn(res.patch)
  if patch and patch ~= "" then
    table.insert(out, "")
    vim.list_extend(out, vim.split(patch, "\n", { plain = true }))
  end
  return out
end

-- A scratch buffer (filetype diff) showing the lines; reused per session.
local function show(name, lines)
  local buf = vim.fn.bufnr(name)
  if buf == -1 then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
    vim.bo[buf].buftype = "nofile"
    vim.bo[buf].filetype = "diff"
  end
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  if vim.fn.bufwinid(buf) == -1 then
    vim.cmd("botright split")
    vim.api.nvim_win_set_buf(0, buf)
  end
  M.last_buf = buf
  return buf
end

--- Preview a restore (method gg/session.undo|redo|restore), show it, ask, then make it.
function M.restore(method, params, done)
  rpc.request(method, vim.tbl_extend("force", params, { preview = true }), function(err, res)
    if err then
      return rpc.notify_error(rpc.error_message(err))
    end
    local verb = method:match("%.(%a+)$")
    local files = util.nn(res.files) or {}
    local conflicts = util.nn(res.conflicts) or {}
    show("gg://files/" .. params.sessionId, lines_of(string.format("%s: %d file(s) would change", verb, #files), res))
    local choices = { "Restore", "Cancel" }
    if #conflicts > 0 then
      choices = { string.format("Restore and overwrite %d file(s) changed outside gg", #conflicts), "Cancel" }
    end
    vim.ui.select(choices, { prompt = "gg " .. verb .. ": restore these files?", kind = "gg.restore" }, function(choice)
      if choice == nil or choice == "Cancel" then
        return info("nothing restored")
      end
      local go = vim.tbl_extend("force", params, { confirmConflicts = #conflicts > 0 })
      rpc.request(method, go, function(err2, res2)
        if err2 then
          return rpc.notify_error(rpc.error_message(err2))
        end
        info(string.format("%s: %d file(s) restored", verb, #(util.nn(res2.files) or {})))
        if done then
          done(res2)
        end
      end)
    end)
  end)
end

--- Show what a turn (its user message id; nil: the last turn) changed.
function M.diff(session_id, turn, done)
  local params = { sessionId = session_id }
  if turn and turn ~= "" then
    params.nodeId = turn
  end
  rpc.request("gg/session.diff", params, function(err, res)
    if err then
      return rpc.notify_error(rpc.error_message(err))
    end
    local files = util.nn(res.files) or {}
    show("gg://files/" .. session_id, lines_of(string.format("turn %s changed %d file(s)", res.turn, #files), res))
    if done then
      done(res)
    end
  end)
end

return M
