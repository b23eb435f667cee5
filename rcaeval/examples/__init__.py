"""Example agents, kept apart from the runner's machinery: templates to copy, and what
``rcaeval demo`` and the tests run as a real agent.

``python -m rcaeval.examples.example_agent``          an ACP agent (investigates over the
                                                      case's MCP tools; docs/agents.md)
``python -m rcaeval.examples.example_command_agent``  a command agent (writes its bundle with
                                                      ``rcaeval.bundle.BundleWriter``)

Both are deterministic and LLM-free: ``_diagnosis`` reads the incident and names a root cause
by rules, ``_mcp`` drives the tool calls.
"""
