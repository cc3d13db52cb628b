local id = vim.lsp.start_client({ name = "gg", cmd = vim.g.gg_cmd or { "ggd", "--stdio" }, root_dir = vim.fn.getcwd(), init_options = { asyncApprovals = true } })
vim.lsp.handlers["window/showMessageRequest"] = function(_, r) -- returns at once; the picker's choice goes to gg/run.approve
  vim.ui.select(r.actions, { prompt = r.message, format_item = function(a) return a.title end }, function(a)
    local act = a or r.actions[#r.actions] -- dismissed: Deny
    if act.approve then vim.lsp.get_client_by_id(id).request("gg/run.approve", act.approve, function() end) end
  end)
  return vim.NIL
end
local function ask(cmd, arg) vim.lsp.get_client_by_id(id).request("workspace/executeCommand", { command = cmd, arguments = { arg } }, function(err) if err then vim.notify("gg: " .. err.message, vim.log.levels.ERROR) end end) end
vim.api.nvim_create_user_command("GGAsk", function(o) ask("gg.ask", o.args) end, { nargs = "+" })
vim.api.nvim_create_user_command("GGAskSelection", function(o) local p = vim.lsp.util.make_given_range_params(nil, nil, 0, "utf-16"); ask("gg.askAboutSelection", { uri = p.textDocument.uri, range = p.range, prompt = o.args ~= "" and o.args or nil }) end, { nargs = "*", range = true })
vim.api.nvim_create_user_command("GGCancel", function() ask("gg.cancel", vim.empty_dict()) end, {})
