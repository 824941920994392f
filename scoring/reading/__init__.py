"""Reading hostile input: JSON Lines, validation into typed records with every problem, model answers."""
