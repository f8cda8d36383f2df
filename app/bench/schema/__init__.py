"""TPOT Bench's typed data and its one JSON codec (app.bench.schema.codec): a field is declared
once, on its dataclass, and its JSON form, its strict reading and its wire order follow from it."""
