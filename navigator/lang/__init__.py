"""Navigator's input languages: scheduling libraries (`*.hblib.toml`), fact programs
(`*.hb.toml`) and condition formulas, in Honeybee's format plus documented extensions."""

from navigator.lang.load_errors import FactError, LibraryError
from navigator.lang.facts_loader import facts_from_records, load_facts, parse_facts
from navigator.lang.formula import (
    Atom,
    Comparison,
    FactPattern,
    Formula,
    Literal,
    ParamField,
    RetField,
    Value,
    format_value,
    same_value,
    value_type_of,
)
from navigator.lang.formula_parser import FormulaSyntaxError, parse_formula
from navigator.lang.library_loader import load_library, load_library_file, parse_library
from navigator.lang.model import (
    DefaultMark,
    Fact,
    FactProgram,
    FieldDecl,
    FunctionDecl,
    Goal,
    Library,
    ParamDecl,
    PropDecl,
    TypeDecl,
)

__all__ = [
    "Atom", "Comparison", "DefaultMark", "Fact", "FactError", "FactPattern", "FactProgram",
    "FieldDecl", "Formula", "FormulaSyntaxError", "FunctionDecl", "Goal", "Library",
    "LibraryError", "Literal", "ParamDecl", "ParamField", "PropDecl", "RetField", "TypeDecl",
    "Value", "facts_from_records", "format_value", "load_facts", "load_library", "load_library_file", "parse_facts",
    "parse_formula", "parse_library", "same_value", "value_type_of",
]
