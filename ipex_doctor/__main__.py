"""``python -m ipex_doctor``: the same entry point as the ``ipex-doctor`` console script."""

from ipex_doctor.cli import main

if __name__ == "__main__":
    main()
