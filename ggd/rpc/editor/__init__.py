"""Plugin-free use from any LSP client: workspace/executeCommand gg.ask / gg.askAboutSelection /
gg.cancel, work-done progress, approvals as window/showMessageRequest, the answer as a document.

The runs these commands start are ordinary runs of the app core (`RunManager.start`): every gg
client sees them; only how progress, approvals and the answer reach this editor differs.
"""

# Import the modules themselves (`ggd.rpc.editor.commands`): commands needs ggd.rpc.dispatch,
# which imports this package's client module while it loads.
