-- The connection to ggd: one Neovim LSP client (gg bridge or ggd --stdio), requests queued until ready.
local util = require("gg.util")

local M = {}

M.PROTOCOL_MAJOR = "1"

local state = {
  client_id = nil,
  ready = false,
  queue = {}, -- functions to run once initialize has answered
  info = nil, -- capabilities.experimental.gg from initialize
}

local function notify_error(msg)
  vim.notify("gg: " .. msg, vim.log.levels.ERROR)
end
M.notify_error = notify_error

--- Message of a JSON-RPC error object (or a plain string).
function M.error_message(err)
  if type(err) == "table" then
    return tostring(util.nn(err.message) or vim.inspect(err))
  end
  return tostring(err)
end

--- Symbolic error code (data.code) of a JSON-RPC error, if any.
function M.error_symbol(err)
  if type(err) == "table" and type(util.nn(err.data)) == "table" then
    return util.nn(err.data.code)
  end
  return nil
end

--- Start the LSP client once; handlers maps notification methods to function(params).
function M.start(opts, handlers)
  if state.client_id and vim.lsp.get_client_by_id(state.client_id) then
    return state.client_id
  end
  state.ready = false
  state.info = nil
  local lsp_handlers = {}
  for method, fn in pairs(handlers) do
    lsp_handlers[method] = function(_, params)
      fn(params)
    end
  end
  local root = opts.root_dir or vim.fn.getcwd()
  state.client_id = vim.lsp.start_client({
    name = "gg",
    cmd = opts.cmd,
    cmd_env = opts.cmd_env,
    root_dir = root,
    capabilities = vim.empty_dict(),
    handlers = lsp_handlers,
    on_init = function(client, result)
      local exp = util.nn(result.capabilities and util.nn(result.capabilities.experimental))
      local gg = exp and util.nn(exp.gg)
      local version = gg and util.nn(gg.protocolVersion)
      if util.major(version) ~= M.PROTOCOL_MAJOR then
        notify_error(string.format("unsupported gg protocol %s (this plugin speaks %s.x)", tostring(version), M.PROTOCOL_MAJOR))
        state.queue = {}
        client.stop()
        return
      end
      state.info = gg
      state.ready = true
      local queued = state.queue
      state.queue = {}
      for _, fn in ipairs(queued) do
        fn(client)
      end
    end,
    on_exit = function(code, signal)
      state.client_id = nil
      state.ready = false
      state.queue = {}
      if opts.on_exit then
        -- on_exit runs in a luv callback: touch buffers and notify from the main loop.
        vim.schedule(function()
          opts.on_exit(code, signal)
        end)
      end
    end,
  })
  if not state.client_id then
    notify_error("could not start " .. table.concat(opts.cmd, " "))
  end
  return state.client_id
end

--- Run fn(client) now if initialized, else once initialize answers.
local function with_client(fn)
  local client = state.client_id and vim.lsp.get_client_by_id(state.client_id)
  if client and state.ready then
    fn(client)
  else
    table.insert(state.queue, fn)
  end
end

--- Send a request; cb(err, result) runs on the main loop. Empty params go as {} (not []).
function M.request(method, params, cb)
  if params == nil or (type(params) == "table" and next(params) == nil) then
    params = vim.empty_dict()
  end
  with_client(function(client)
    local ok = client.request(method, params, function(err, result)
      if cb then
        cb(err, util.nn(result))
      elseif err then
        notify_error(M.error_message(err))
      end
    end)
    if not ok and cb then
      cb({ message = "the gg connection is closed" }, nil)
    end
  end)
end

--- True once initialize has answered with a compatible protocol.
function M.is_ready()
  return state.ready
end

--- gg capabilities from initialize (protocolVersion, capabilities, workspace), or nil.
function M.info()
  return state.info
end

--- The LSP client id, or nil.
function M.client_id()
  return state.client_id
end

--- Stop the client (LSP shutdown + exit: closes this connection only).
function M.stop()
  local client = state.client_id and vim.lsp.get_client_by_id(state.client_id)
  if client then
    client.stop()
  end
end

return M
