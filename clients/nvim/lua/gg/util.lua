-- Small pure helpers shared by the gg plugin (no Neovim state, unit-testable).
local M = {}

--- Return nil for JSON null (vim.NIL), the value otherwise.
function M.nn(v)
  if v == vim.NIL then
    return nil
  end
  return v
end

--- Split text on newlines, keeping empty pieces (so "a\n" -> {"a", ""}).
function M.split_lines(text)
  local out = {}
  local start = 1
  while true do
    local i = string.find(text, "\n", start, true)
    if not i then
      table.insert(out, string.sub(text, start))
      return out
    end
    table.insert(out, string.sub(text, start, i - 1))
    start = i + 1
  end
end

--- Flatten a message content (string or list of parts) to plain text.
function M.content_text(content)
  content = M.nn(content)
  if content == nil then
    return ""
  end
  if type(content) == "string" then
    return content
  end
  local parts = {}
  if type(content) == "table" then
    for _, part in ipairs(content) do
      if type(part) == "string" then
        table.insert(parts, part)
      elseif type(part) == "table" and type(M.nn(part.text)) == "string" then
        table.insert(parts, part.text)
      end
    end
  end
  return table.concat(parts, "")
end

--- The major part of a "MAJOR.MINOR" protocol version, or nil.
function M.major(version)
  if type(version) ~= "string" then
    return nil
  end
  return string.match(version, "^(%d+)")
end

--- The choices offered when a tool needs approval, as {label, allow, scope}.
M.approval_choices = {
  { label = "Allow", allow = true, scope = "once" },
  { label = "Allow for session", allow = true, scope = "session" },
  { label = "Deny", allow = false, scope = "once" },
}

--- One-line prompt for an Approval DTO: tool, summary, risk and reason.
function M.approval_prompt(approval)
  -- A subagent's call (it runs in a child session of the run) says which agent asks.
  local agent = M.nn(approval.agent)
  local who = agent and ("gg's subagent " .. agent) or "gg"
  local text = string.format("%s wants to run %s: %s", who, approval.toolName or "a tool", M.nn(approval.summary) or "")
  local risk = M.nn(approval.risk)
  if risk and risk ~= "normal" then
    text = text .. string.format(" [%s]", risk)
  end
  local reason = M.nn(approval.riskReason)
  if reason then
    text = text .. " (" .. reason .. ")"
  end
  return text
end

--- A label for a session list entry: name or preview, with message count.
function M.session_label(s)
  local title = s.id
  for _, candidate in ipairs({ M.nn(s.name), M.nn(s.preview) }) do
    if type(candidate) == "string" and candidate ~= "" then
      title = candidate
      break
    end
  end
  title = string.gsub(title, "%s+", " ")
  if #title > 60 then
    title = string.sub(title, 1, 57) .. "..."
  end
  local label = string.format("%s (%d msgs)", title, M.nn(s.messageCount) or 0)
  if M.nn(s.activeRunId) then
    label = label .. " [running]"
  end
  return label
end

--- First line of a possibly long text, shortened for a status line.
function M.first_line(text, max)
  text = M.nn(text) or ""
  local line = string.match(text, "^[^\n]*") or ""
  max = max or 120
  if #line > max then
    line = string.sub(line, 1, max - 3) .. "..."
  end
  return line
end

return M
