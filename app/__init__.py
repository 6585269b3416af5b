"""룰사전, the rules reference (see README.md)."""

from app.native import guard

# Before any module below: a compiled module that no longer matches its source is passed over.
guard()
