-- Drives Neovim's built-in LSP client against "bitsh lsp", headless, and
-- writes what the client received to a JSON file. Run by
-- TestNeovimLSP (lsp_nvim_test.go) as:
--   nvim --headless --clean -c "luafile nvim_lsp.lua"
-- with BITSH_NVIM_CONFIG naming a JSON file: {"bitsh": path of the
-- bitsh command, "root": the workspace, "file": the .star file to open,
-- "out": where to write, "hover", "completion", "definition": positions
-- {line, character} (from 0)}.
local function main()
  local config = vim.fn.json_decode(table.concat(vim.fn.readfile(os.getenv("BITSH_NVIM_CONFIG")), "\n"))
  local got = { log = {} }
  local function log(msg) table.insert(got.log, msg) end

  vim.cmd("edit " .. vim.fn.fnameescape(config.file))
  local bufnr = vim.api.nvim_get_current_buf()
  local uri = vim.uri_from_bufnr(bufnr)
  local id = vim.lsp.start_client({
    name = "bitsh",
    cmd = { config.bitsh, "lsp" },
    root_dir = config.root,
    handlers = {
      ["textDocument/publishDiagnostics"] = function(err, result, ctx, cfg)
        if result and result.uri == uri then
          got.diagnostics = result.diagnostics
        end
      end,
    },
    on_exit = function(code, signal) log("server exited: " .. tostring(code)) end,
  })
  if not id then
    log("start_client failed")
    return got
  end
  vim.lsp.buf_attach_client(bufnr, id)
  if not vim.wait(20000, function() return got.diagnostics ~= nil end, 20) then
    log("no diagnostics within 20 s")
  end
  local client = vim.lsp.get_client_by_id(id)
  got.server_name = client.server_capabilities and "bitsh" or nil
  local function request(method, params)
    local r, err = client.request_sync(method, params, 20000, bufnr)
    if not r then
      log(method .. ": " .. tostring(err))
      return nil
    end
    if r.err then
      log(method .. ": " .. vim.inspect(r.err))
    end
    return r.result
  end
  local function at(p)
    return { textDocument = { uri = uri }, position = { line = p[1], character = p[2] } }
  end
  got.hover = request("textDocument/hover", at(config.hover))
  got.completion = request("textDocument/completion", at(config.completion))
  got.definition = request("textDocument/definition", at(config.definition))
  got.formatting = request("textDocument/formatting", { textDocument = { uri = uri }, options = { tabSize = 4, insertSpaces = true } })
  -- Neovim applies the formatting edits itself; the buffer shows the result.
  if got.formatting then
    vim.lsp.util.apply_text_edits(got.formatting, bufnr, "utf-16")
  end
  got.formatted = table.concat(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false), "\n") .. "\n"
  client.stop()
  return got
end

local ok, got = pcall(main)
if not ok then
  got = { log = { "lua error: " .. tostring(got) } }
end
local config = vim.fn.json_decode(table.concat(vim.fn.readfile(os.getenv("BITSH_NVIM_CONFIG")), "\n"))
vim.fn.writefile({ vim.fn.json_encode(got) }, config.out)
vim.cmd("qall!")
