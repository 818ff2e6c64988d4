BoutJDíwnªI¶
