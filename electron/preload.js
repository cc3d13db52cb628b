'use strict';
// Runs sandboxed and context-isolated: hands the page only {endpoint, token, workspace}, nothing else.
const { contextBridge, ipcRenderer } = require('electron');

const config = ipcRenderer.sendSync('gg:config') || {};
contextBridge.exposeInMainWorld(
  'gg',
  Object.freeze({
    endpoint: String(config.endpoint || ''),
    token: String(config.token || ''),
    workspace: String(config.workspace || ''),
  }),
);
