-- Drives the plugin-free config (plain_lsp.lua) in headless Neovim: no gg plugin is on the rtp.
-- GG_TEST_ARGS: {cmd, prompt, file, expect_content, expect_log}
local H = dofile(os.getenv("GG_TEST_HARNESS"))
local A = H.args
vim.g.gg_cmd = A.cmd
dofile(A.config)

local progress, logs = {}, {}
local default_progress = vim.lsp.handlers["$/progress"]
vim.lsp.handlers["$/progress"] = function(err, result, ctx)
  table.insert(progress, { token = result.token, kind = result.value.kind, message = result.value.message })
  return default_progress(err, result, ctx)
end
vim.lsp.handlers["window/logMessage"] = function(_, result)
  table.insert(logs, result.message)
end
-- The user picks Allow in the vim.ui.select the config opens for the approval.
H.answer_selects(function(_, _, labels)
  return H.index_of(labels, "Allow")
end)

local function read(path)
  local f = io.open(path, "r")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

H.run(function(data)
  H.wait(20000, function()
    local c = vim.lsp.get_client_by_id(1)
    return c and c.initialized
  end, "the LSP client to initialize")
  local caps = vim.lsp.get_client_by_id(1).server_capabilities
  data.commands = caps.executeCommandProvider and caps.executeCommandProvider.commands
  vim.cmd("GGAsk " .. A.prompt)
  H.wait(30000, function()
    return read(A.file) == A.expect_content
  end, "the approved write to change " .. A.file)
  H.wait(30000, function()
    for _, m in ipairs(logs) do
      if m:find(A.expect_log, 1, true) then
        return true
      end
    end
  end, "the answer as a log message")
  H.wait(10000, function()
    for _, p in ipairs(progress) do
      if p.kind == "end" then
        return true
      end
    end
  end, "the progress to end")
  data.progress = progress
  data.logs = logs
end)
