"""Navigator's synthesis engine: sketches with typed holes and the step oracle that offers
exactly the steps that can still be completed (strong soundness and completeness)."""

from navigator.synth.count import ONE, UNBOUNDED, ZERO, Count
from navigator.synth.domain import Domain, build_domain
from navigator.synth.json_form import ExpressionError, node_to_json, sketch_from_json, sketch_to_json
from navigator.synth.menu import HoleMenu, MenuOption, Menus, option_id
from navigator.synth.oracle import Oracle
from navigator.synth.printer import format_node_inline, format_sketch
from navigator.synth.sketch import App, Hole, HoleSite, Node, Sketch

__all__ = [
    "App", "Count", "Domain", "ExpressionError", "Hole", "HoleMenu", "HoleSite",
    "MenuOption", "Menus", "Node", "ONE", "Oracle", "Sketch", "UNBOUNDED", "ZERO",
    "build_domain", "format_node_inline", "format_sketch", "node_to_json", "option_id",
    "sketch_from_json", "sketch_to_json",
]
