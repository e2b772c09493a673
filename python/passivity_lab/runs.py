"""Results of a scenario run: each variant's recorded series (the columns
of ``<variant>.csv`` written by ``passivity-lab run``) as a numpy array,
its summary (``summary.json``'s entry) as a dict, and a pandas DataFrame
when pandas is installed."""

import json

__all__ = ["Run", "run"]


class Run:
    """One variant's run.

    ``data`` is a (samples x columns) float64 array, ``columns`` its column
    names; ``run["q_0"]`` is one column (a view, no copy). ``summary`` is the
    variant's summary; ``divergence`` the message if the run diverged
    (the data then ends where it stopped), else None.
    """

    def __init__(self, name, columns, data, summary, divergence):
        self.name = name
        self.columns = list(columns)
        self.data = data
        self.summary = json.loads(summary)
        self.divergence = divergence
        self._index = {c: i for i, c in enumerate(self.columns)}

    def __getitem__(self, column):
        try:
            return self.data[:, self._index[column]]
        except KeyError:
            raise KeyError(
                f"no column '{column}' (columns: {', '.join(self.columns)})"
            ) from None

    def columns_like(self, prefix):
        """The columns ``prefix_0, prefix_1, ...`` (e.g. "q") as a (samples x n) array."""
        idx = [i for i, c in enumerate(self.columns) if c.rsplit("_", 1)[0] == prefix]
        return self.data[:, idx]

    def to_dataframe(self):
        """The series as a pandas DataFrame (needs pandas)."""
        try:
            import pandas as pd
        except ImportError as e:
            raise ImportError("to_dataframe needs pandas: pip install pandas") from e
        return pd.DataFrame(self.data, columns=self.columns, copy=False)

    def __repr__(self):
        return f"Run('{self.name}', {self.data.shape[0]} samples, {len(self.columns)} columns)"



def run(scenario, variants=None, allow_long=False):
    """``scenario.run(...)``: runs it headless and returns ``{variant: Run}``."""
    return scenario.run(variants, allow_long)
