"""Where a search keeps its finished steps: the step stores the loop records steps in
(:mod:`metafx.storage.store`: the protocol, no store and the JSON-lines journal store), the journal file
(:mod:`metafx.storage.journal`), the optuna study store (:mod:`metafx.storage.study`), the optuna storages a
``storage=`` string opens (:mod:`metafx.storage.backends`) and the files storages name
(:mod:`metafx.storage.files`).  Engines know nothing of it: the loop opens a store, replays what it holds, and
records each step there."""
