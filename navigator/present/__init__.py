"""What `show`, `history`, the TUI and the model's prompt print, and how a user names an option.

views    the session's header, sketch, menus and history as text and as JSON (docs/session-json.md)
choice   reading `fill HOLE OPTION...`: a menu number, an option id, or FUNCTION FIELD=VALUE
regions  which region each hole belongs to, so sketches with hundreds of holes stay readable
"""
