"""Research over many matches: tournaments, human-AI studies, their analysis and reports."""
