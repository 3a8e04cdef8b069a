"""Running an experiment: its file, its plan, its chunks and results folder, the machine, Dask."""
