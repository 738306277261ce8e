"""nbgrader's ``CheckCellMetadata``, with its JSON schema checked once instead of at every cell.

nbgrader validates each cell's ``metadata.nbgrader`` with ``jsonschema.validate``, which first checks
the schema itself against JSON Schema's meta-schema: on a course notebook that is about 0.15 s of a
core per pass, and ``autograde`` makes two passes per notebook.  :class:`MetadataValidator` is
nbgrader's own validator (version 3, every check of it) with only that call replaced: the schema is
checked and compiled once per process, then each cell is validated exactly as ``jsonschema.validate``
would (the same error, chosen by ``best_match``).
"""

from __future__ import annotations

import traceback

from jsonschema import exceptions, validators
from nbgrader.nbgraderformat.common import BaseMetadataValidator, SchemaTooNewError, SchemaTooOldError
from nbgrader.nbgraderformat.v3 import MetadataValidatorV3
from nbgrader.preprocessors import CheckCellMetadata as NbgraderCheckCellMetadata

from ...cells import nbgrader_meta

_COMPILED: dict[int, object] = {}  # schema version -> its validator, checked against the meta-schema once


class _SchemaCheckedOnce(BaseMetadataValidator):
    """The base validator's checks of one cell (schema version, then the schema), the schema compiled once."""

    def validate_cell(self, cell) -> None:
        if "nbgrader" not in cell.metadata:
            return
        meta = nbgrader_meta(cell)
        version = meta.get("schema_version", 0)
        if version < self.schema_version:
            raise SchemaTooOldError(f"Outdated schema version: {version} (expected {self.schema_version})",
                                    version, self.schema_version)
        if version > self.schema_version:
            raise SchemaTooNewError(f"Schema version is too new: {version} (expected {self.schema_version})",
                                    version, self.schema_version)
        validator = _COMPILED.get(self.schema_version)
        if validator is None:
            kind = validators.validator_for(self.schema)
            kind.check_schema(self.schema)
            validator = _COMPILED[self.schema_version] = kind(self.schema)
        error = exceptions.best_match(validator.iter_errors(meta))
        if error is not None:
            raise error


class MetadataValidator(MetadataValidatorV3, _SchemaCheckedOnce):
    """nbgrader's version-3 validator; its call to the base class's checks lands on :class:`_SchemaCheckedOnce`
    (the method resolution order puts it between the two)."""


class CheckCellMetadata(NbgraderCheckCellMetadata):
    """nbgrader's preprocessor, with :class:`MetadataValidator`.  What failed to validate is kept in
    :attr:`failed` as well as logged: the grading worker reads it there (one instance serves both of
    ``autograde``'s passes), never from the log."""

    failed = ""  # the validation error of the last notebook that failed, "" while none has

    def preprocess(self, nb, resources):
        from nbgrader.nbgraderformat import ValidationError

        try:
            MetadataValidator().validate_nb(nb)
        except ValidationError as error:
            self.failed = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg) from None
        return nb, resources


def with_fast_metadata_check(preprocessors: list) -> list:
    """``preprocessors`` with nbgrader's ``CheckCellMetadata`` replaced by :class:`CheckCellMetadata`."""
    return [CheckCellMetadata if p is NbgraderCheckCellMetadata else p for p in preprocessors]
