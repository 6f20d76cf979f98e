"""Learn (/learn/): the course of short lessons played on the table's own UI, and each
account's progress through it. The lessons are data (``learn/lessons/``, read by
``learn.lessons``), beside the rule sections they point to (``games.teaching``)."""
