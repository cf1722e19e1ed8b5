# The two commands a new machine needs (see README.md):
#   make demo   install, load the demo matter and serve it on http://127.0.0.1:8000
#   make test   install and run the whole test suite (SQLite, then PostgreSQL)
.PHONY: demo test install worker lint

install:
	scripts/bootstrap.sh

demo: install
	.venv/bin/python manage.py migrate --noinput
	.venv/bin/python manage.py load_demo
	@echo "Sign in at http://127.0.0.1:8000/ as demo / demo"
	.venv/bin/python manage.py runserver 127.0.0.1:8000

test:
	scripts/test.sh

# A worker with beat inside it (the job sweeper); with several workers, run beat in only one.
worker: install
	.venv/bin/celery -A legalnav worker -B --schedule=var/celerybeat-schedule --loglevel=INFO

lint: install
	.venv/bin/ruff check legalnav tests
	.venv/bin/lint-imports
