/* Every command, once, in the order `gq help` lists them. */
CMD(version)
