"""app: the use cases, from a typed request to a published report and an exit code.

``diagnosis`` (check, env, repro, sanity: probe, runs, verdicts), ``replay`` (report:
re-judge one saved report; merge: many into a fleet report) and ``conclusion`` (the route
every one of them ends on: the gate policy checked before any work, the baseline compared,
the report published); ``knowledge_views`` (kb list, show and validate, repro --list: light,
its imports lazy); ``request_parts`` (a request's parts from the values typed: light, its
imports lazy); ``approval`` (when a flow that asks may go ahead); ``endings`` (how a run that
raised ends). May import every room below it; the CLI is its only caller.
"""
