-- Tiny test harness for headless Neovim: waits on predicates, records a JSON result, quits.
local H = {}

H.args = vim.json.decode(os.getenv("GG_TEST_ARGS") or "{}")
H.notes = {} -- vim.notify messages, for assertions
H.selects = {} -- every vim.ui.select call: {prompt, kind, labels}
H.finished = 0 -- GGRunFinished autocmds seen

local real_notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(H.notes, { msg = msg, level = level })
  return real_notify(msg, level, opts)
end

vim.api.nvim_create_autocmd("User", {
  pattern = "GGRunFinished",
  callback = function()
    H.finished = H.finished + 1
  end,
})

--- Answer vim.ui.select with answer(items, opts) -> index or nil (nil = dismissed), asynchronously.
function H.answer_selects(answer)
  vim.ui.select = function(items, opts, on_choice)
    local labels = {}
    for i, it in ipairs(items) do
      labels[i] = opts.format_item and opts.format_item(it) or tostring(it)
    end
    table.insert(H.selects, { prompt = opts.prompt, kind = opts.kind, labels = labels })
    local idx = answer(items, opts, labels)
    vim.schedule(function()
      on_choice(idx and items[idx] or nil, idx)
    end)
  end
end

--- Index of the first label equal to name.
function H.index_of(labels, name)
  for i, l in ipairs(labels) do
    if l == name then
      return i
    end
  end
end

--- Wait up to ms for pred() to be truthy; raise with what on timeout.
function H.wait(ms, pred, what)
  if not vim.wait(ms, pred, 10) then
    error("timed out after " .. ms .. " ms waiting for " .. what, 2)
  end
end

--- The text of a buffer.
function H.text(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), "\n")
end

--- Assert; msg says what was expected.
function H.check(cond, msg)
  if not cond then
    error("check failed: " .. msg, 2)
  end
end

--- Run the test body; write {ok, error, data} to $GG_TEST_RESULT and quit (exit code 1 on failure).
function H.run(body)
  local data = {}
  local ok, err = xpcall(function()
    body(data)
  end, debug.traceback)
  data.notes = H.notes
  data.selects = H.selects
  local f = assert(io.open(os.getenv("GG_TEST_RESULT"), "w"))
  f:write(vim.json.encode({ ok = ok, error = ok and vim.NIL or tostring(err), data = data }))
  f:close()
  pcall(function()
    require("gg.rpc").stop()
    vim.wait(2000, function()
      return require("gg.rpc").client_id() == nil
    end, 10)
  end)
  vim.cmd(ok and "qall!" or "cquit! 1")
end

return H
