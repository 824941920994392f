"""The site from a script and its starter kit: the client, the site commands, terminal tables, inputs and samples."""
