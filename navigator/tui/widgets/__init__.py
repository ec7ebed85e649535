"""The main screen's panes, one module each; each renders what the controller gives it and posts
its own messages (nested on the widget that sends them) for the app to act on."""
