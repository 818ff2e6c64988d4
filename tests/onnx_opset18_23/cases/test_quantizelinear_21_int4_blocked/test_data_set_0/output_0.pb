ByJqyxˆ!w‡ß¸?
