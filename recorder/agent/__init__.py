"""The agent loop: one conversation's model requests and tool calls, and the instructions it receives."""
