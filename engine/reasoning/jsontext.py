"""JSON text of flat records, fast: the encoder of ``json.dumps`` built once instead of once per call.

``json.JSONEncoder.encode`` builds a new C encoder for every call; for the reasoner's small records
(every fact sent to durable_rules, every derived fact's key) that was most of the cost. The text is
the same as ``json.dumps(obj, ensure_ascii=False, ...)`` with the same options, except that circular
references are not looked for (the reasoner's records are never circular).
"""
from __future__ import annotations

import json
import json.encoder as _enc
from typing import Any, Callable


def encoder(sort_keys: bool = False, default: Callable[[Any], Any] | None = None) -> Callable[[Any], str]:
    """``lambda obj: json.dumps(obj, ensure_ascii=False, sort_keys=sort_keys, default=default)``.

    >>> encoder(sort_keys=True, default=str)({"b": 1.5, "a": ["中", None, True]})
    '{"a": ["中", null, true], "b": 1.5}'
    """
    plain = json.JSONEncoder(ensure_ascii=False, sort_keys=sort_keys, default=default)
    make = getattr(_enc, "c_make_encoder", None)
    if make is None:                       # no C accelerator: the standard encoder
        return plain.encode
    c = make(None, plain.default, _enc.encode_basestring, None, plain.key_separator, plain.item_separator,
             sort_keys, False, True)
    join = "".join

    def encode(obj: Any) -> str:
        if isinstance(obj, str):
            return _enc.encode_basestring(obj)
        return join(c(obj, 0))
    return encode
