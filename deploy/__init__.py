"""Running the site in production: nginx, systemd units, the environment (docs/deploy.md)."""
