-- The plugin-free config (plain_lsp.lua) with a picker that behaves like dressing.nvim: its
-- vim.ui.select opens a floating window and returns at once; a key press (<CR>) picks the line
-- under the cursor. Nothing here blocks: each step runs from a timer when the previous one is
-- done, so Neovim's main loop reads typed keys exactly as it does for a user.
-- GG_TEST_ARGS: {cmd, config, prompt, file, expect_content, expect_log, within_ms}
local H = dofile(os.getenv("GG_TEST_HARNESS"))
local A = H.args
vim.g.gg_cmd = A.cmd
dofile(A.config)

local data = { picker = {}, logs = {}, stage = "the LSP client to initialize" }
vim.lsp.handlers["window/logMessage"] = function(_, result)
  table.insert(data.logs, result.message)
end

vim.ui.select = function(items, opts, on_choice)
  local labels = {}
  for i, it in ipairs(items) do
    labels[i] = opts.format_item and opts.format_item(it) or tostring(it)
  end
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, labels)
  local win = vim.api.nvim_open_win(buf, true, {
    relative = "editor", row = 1, col = 1, width = 60, height = #labels, style = "minimal",
  })
  vim.keymap.set("n", "<CR>", function()
    local idx = vim.api.nvim_win_get_cursor(win)[1]
    vim.api.nvim_win_close(win, true)
    data.picked = labels[idx]
    on_choice(items[idx], idx)
  end, { buffer = buf })
  table.insert(data.picker, { prompt = opts.prompt, labels = labels })
end

local function read(path)
  local f = io.open(path, "r")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

local function finish(ok, err)
  local f = assert(io.open(os.getenv("GG_TEST_RESULT"), "w"))
  f:write(vim.json.encode({ ok = ok, error = err or vim.NIL, data = data }))
  f:close()
  vim.cmd(ok and "qall!" or "cquit! 1")
end

-- Each step: a predicate, and what to do once it holds (then the next step starts).
local steps = {
  {
    "the LSP client to initialize",
    function()
      local c = vim.lsp.get_client_by_id(1)
      return c and c.initialized
    end,
    function()
      vim.cmd("GGAsk " .. A.prompt)
    end,
  },
  {
    "the picker to open",
    function()
      return #data.picker == 1
    end,
    function()
      -- Typed while the picker is open: an Ex command, then <CR> on the first line (Allow).
      vim.api.nvim_input(":let g:gg_typed = 1<CR>")
    end,
  },
  {
    "typed keys to run while the picker is open (a blocked main loop never runs them)",
    function()
      return vim.g.gg_typed == 1
    end,
    function()
      vim.api.nvim_input("<CR>")
    end,
  },
  {
    "the pick to reach ggd and the approved write to change the file",
    function()
      return read(A.file) == A.expect_content
    end,
    function() end,
  },
  {
    "the answer as a log message",
    function()
      for _, m in ipairs(data.logs) do
        if m:find(A.expect_log, 1, true) then
          return true
        end
      end
    end,
    function() end,
  },
}

local step, deadline = 1, vim.loop.now() + A.within_ms
local timer = vim.loop.new_timer()
timer:start(20, 20, vim.schedule_wrap(function()
  if step > #steps then
    return
  end
  local what, pred, act = unpack(steps[step])
  data.stage = what
  local ok, held = pcall(pred)
  if ok and held then
    step = step + 1
    act()
    if step > #steps then
      timer:stop()
      finish(true)
    end
  elseif vim.loop.now() > deadline then
    timer:stop()
    finish(false, "timed out waiting for " .. what)
  end
end))
