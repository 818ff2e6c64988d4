BdataJº]1˜‡q
