"""Learn (/learn/): the course of short lessons played on the table's own UI, and each
account's progress through it. The lessons are data (``games.teaching``)."""
