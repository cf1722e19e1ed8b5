"""``manage.py evaluate_playbook``: the dev playbook's verdicts on the CUAD dev contracts, through
the measurement door (in-sample: the filler's constants saw these contracts) and, with
``--held``, on the cross-validated cells of ``scripts/eval_extract.py --fit``
(legalnav/evaluation/playbook.py)."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser


class Command(BaseCommand):
    help = "Verdict accuracy and deviates recall/precision of the dev playbook on CUAD dev."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--contracts", type=int, default=40)
        parser.add_argument(
            "--held",
            nargs="?",
            const=str(Path(settings.BASE_DIR) / "var" / "evaluation" / "grid-fit-held.json"),
            default=None,
            help="also judge the held-out cells of scripts/eval_extract.py --fit (cross-validated)",
        )
        parser.add_argument(
            "--no-door", action="store_true", help="only the held-out cells (with --held)"
        )
        parser.add_argument("--json", action="store_true")

    def handle(self, *args: object, **opts: object) -> None:
        from legalnav.evaluation import playbook
        from legalnav.evaluation.gold import data_dir
        from legalnav.review.calibration import FITTED_ON

        data = data_dir()
        names = playbook.dev_names(data, int(opts["contracts"]))  # type: ignore[call-overload]
        answers = playbook.dev_answers(data, names)
        out: dict[str, object] = {"contracts": len(names)}
        lines: list[str] = []
        if opts["no_door"] and not opts["held"]:
            raise CommandError("--no-door leaves nothing to measure without --held")
        if not opts["no_door"]:
            verdicts, wall, errors = playbook.run_door(names, data, Path(settings.BASE_DIR))
            seen = set(names) & set(FITTED_ON)
            label = (
                f"IN-SAMPLE (the filler's constants were fitted on {len(seen)} of these contracts)"
                if seen
                else "blind to the filler's fitting"
            )
            door = playbook.figures(playbook.judge(answers, verdicts, names))
            out["door"] = {"label": label, "wall_s": round(wall, 1), "errors": errors, **door}
            lines.append(playbook.table(f"through the door, {len(names)} contracts: {label}", door))
            lines.append(f"  door wall time {wall:.1f} s, {errors} lines failed")
        if opts["held"]:
            path = Path(str(opts["held"]))
            if not path.exists():
                raise CommandError(
                    f"{path} does not exist: run scripts/eval_extract.py --contracts 40 --fit first"
                )
            held = playbook.figures(playbook.judge(answers, playbook.held_verdicts(path), names))
            out["cross_validated"] = held
            lines.append(
                playbook.table("held-out cells, cross-validated by contract (5 folds)", held)
            )
        if opts["json"]:
            self.stdout.write(json.dumps(out, indent=2))
        else:
            self.stdout.write("\n".join(lines))
