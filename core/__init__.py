"""The neutral floor every app stands on: a refusal a user can read, and what leaves after
a commit. It imports no app of the site (engine, games, tournaments, moderation, accounts
all point down to it; see README, "The floors")."""
