"""A stateful stand-in of Kaggle's API for the official Kaggle client (tests/loop). See README.md."""
