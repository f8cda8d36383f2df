"""The Check connection tab: the doctor's checklist in the UI language."""
