"""Development support: synthetic cohorts, the demo, the grading benchmark, the hostile corpus and
notebook tools for the tests.  Nothing in the learner runtime or the instructor tools imports it."""
