"""Scripts the repository keeps: ``house.py`` measures the house rules' figures."""
