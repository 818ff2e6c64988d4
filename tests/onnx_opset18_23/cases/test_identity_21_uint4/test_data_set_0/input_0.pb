BdataJDíwnªI¶
